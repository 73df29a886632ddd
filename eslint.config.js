// @ts-check
// `npm run lint`: typescript-eslint's recommended rules, and no function with more than five
// positional parameters (many values travelling together are one value: name it).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'generated/**',
      'node_modules/**',
      'test/.tmp/**',
      'test/adapters/project/generated/**',
      'test/adapters/mastra/generated/**',
      'test/compiler/golden-diagnostics/**',
      'test/migrate/golden/**',
      'src/compiler/validate/tool-schema.validator.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'max-params': ['error', 5],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The VS Code extension is CommonJS, as VS Code loads extensions with require.
    files: ['src/vscode/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests reach into values of any shape on purpose.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
