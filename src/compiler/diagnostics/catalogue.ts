/**
 * Every diagnostic toolgen can report, with its stable code and severity. Codes never change meaning;
 * retired codes are not reused (retired: TG5005, TG6001). Ranges: 1xxx input files, 2xxx catalogue,
 * 3xxx step graph, 4xxx data flow and templates, 5xxx tool signatures.
 */
export const CATALOGUE = {
  // Input files
  YAML_SYNTAX: { code: 'TG1001', severity: 'error' },
  YAML_WARNING: { code: 'TG1002', severity: 'warning' },
  FILE_UNREADABLE: { code: 'TG1003', severity: 'error' },
  SCHEMA_VIOLATION: { code: 'TG1101', severity: 'error' },
  SCHEMA_UNKNOWN_FIELD: { code: 'TG1102', severity: 'error' },
  SCHEMA_MISSING_FIELD: { code: 'TG1103', severity: 'error' },
  SCHEMA_WRONG_TYPE: { code: 'TG1104', severity: 'error' },
  SCHEMA_BAD_VALUE: { code: 'TG1105', severity: 'error' },
  // Catalogue of tools
  DUPLICATE_TOOL: { code: 'TG2001', severity: 'error' },
  UNKNOWN_TOOL: { code: 'TG2002', severity: 'error' },
  HANDLER_MODULE_MISSING: { code: 'TG2003', severity: 'error' },
  HANDLER_EXPORT_MISSING: { code: 'TG2004', severity: 'error' },
  IDENTIFIER_CLASH: { code: 'TG2005', severity: 'error' },
  RECURSIVE_COMPOSITE: { code: 'TG2006', severity: 'error' },
  UNKNOWN_NAME: { code: 'TG2007', severity: 'error' },
  HELD_BACK: { code: 'TG2008', severity: 'error' },
  // Step graph
  DUPLICATE_STEP_ID: { code: 'TG3001', severity: 'error' },
  UNKNOWN_NEXT: { code: 'TG3002', severity: 'error' },
  AMBIGUOUS_NEXT: { code: 'TG3003', severity: 'error' },
  UNREACHABLE_STEP: { code: 'TG3004', severity: 'error' },
  ENDLESS_LOOP: { code: 'TG3005', severity: 'error' },
  EMPTY_COMPOSITE: { code: 'TG3006', severity: 'error' },
  USELESS_NEXT: { code: 'TG3007', severity: 'warning' },
  USELESS_RETRY_SETTING: { code: 'TG3008', severity: 'warning' },
  BLOCK_RETRY: { code: 'TG3009', severity: 'error' },
  DAG_NEXT: { code: 'TG3010', severity: 'error' },
  DEPENDENCY_CYCLE: { code: 'TG3011', severity: 'error' },
  // Data flow and templates
  UNDEFINED_VARIABLE: { code: 'TG4001', severity: 'error' },
  MAYBE_UNDEFINED_VARIABLE: { code: 'TG4002', severity: 'warning' },
  TEMPLATE_SYNTAX: { code: 'TG4003', severity: 'error' },
  SEED_TEMPLATE: { code: 'TG4004', severity: 'warning' },
  RESERVED_NAME: { code: 'TG4005', severity: 'error' },
  UNKNOWN_STEP_REFERENCE: { code: 'TG4006', severity: 'error' },
  UNKNOWN_OUTPUT_FIELD: { code: 'TG4007', severity: 'error' },
  EXPRESSION_SYNTAX: { code: 'TG4008', severity: 'error' },
  // Tool signatures
  UNKNOWN_INPUT: { code: 'TG5001', severity: 'error' },
  MISSING_INPUT: { code: 'TG5002', severity: 'error' },
  INPUT_TYPE: { code: 'TG5003', severity: 'error' },
  UNKNOWN_OUTPUT: { code: 'TG5004', severity: 'error' },
  EXAMPLE_INPUT: { code: 'TG5006', severity: 'error' },
  NO_EXAMPLES: { code: 'TG5007', severity: 'warning' },
  UNKNOWN_STUB: { code: 'TG5008', severity: 'error' },
  LOOP_OVER_NOT_LIST: { code: 'TG5009', severity: 'error' },
} as const;

export type DiagnosticId = keyof typeof CATALOGUE;
export type Severity = 'error' | 'warning';
