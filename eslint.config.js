// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'generated/**',
      'node_modules/**',
      'test/.tmp/**',
      'test/compiler/golden-diagnostics/**',
      'test/migrate/golden/**',
      'src/compiler/validate/tool-schema.validator.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { console: 'readonly', process: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
    rules: {
      'max-params': ['error', 5],
    },
  },
);
