/**
 * The original format's field names met by the normal build: a "did you mean" pointing at the new
 * name, and a hint to run `toolgen migrate`. Other unknown fields read as they always did.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/project.js';

let project: TestProject;
afterEach(() => project?.dispose());

const OLD_TOOL = `
name: legacy
description: An old tool
business_rules: { required_permissions: [x] }
session_policies: { requires_active_session: true }
casefile_policies: { requires_casefile: true }
audit_events: { success_event: ok }
test_scenarios: [{ name: a, parameters: { n: 1 } }]
classification: { domain: demo }
descripton: typo
parameters:
  - { name: n, type: int, enum_values: [1, 2] }
implementation: { type: api_call, api_call: { endpoint: /x } }
examples:
  - description: one
    input: { n: 1 }
    context: { session: { user_id: u } }
error_scenarios:
  - description: bad
    input: { n: 3 }
    expected_error: { type: ValidationError }
`;

async function diagnosticsOf(text: string) {
  project = createProject({ 'config/tools/legacy.yaml': text });
  const { all } = await project.diagnose();
  return all.filter((found) => found.location?.file.endsWith('legacy.yaml'));
}

describe('old field names in a normal build', () => {
  it.each([
    ['business_rules', 'policies'],
    ['session_policies', 'policies'],
    ['casefile_policies', 'policies'],
    ['audit_events', 'audit'],
    ['test_scenarios', 'examples'],
    ['enum_values', 'enum'],
    ['type', 'kind'],
  ])("'%s' gets a did-you-mean '%s' and a hint to run toolgen migrate", async (field, meant) => {
    const found = (await diagnosticsOf(OLD_TOOL)).find((d) => d.message.startsWith(`unknown field '${field}'`))!;
    expect(found).toMatchObject({ code: 'TG1102', id: 'SCHEMA_OLD_FIELD', suggestion: meant });
    expect(found.message).toMatch(new RegExp(`did you mean '${meant}'\\?$`));
    expect(found.hint).toMatch(/npx toolgen migrate SRC DEST/);
  });

  it('test_scenarios says both of its new homes', async () => {
    const found = (await diagnosticsOf(OLD_TOOL)).find((d) => d.message.startsWith("unknown field 'test_scenarios'"))!;
    expect(found.hint).toContain('in toolgen: examples, or error_scenarios for those that expect a failure');
  });

  it('an old field with no equivalent, and an old implementation type, get the migrate hint', async () => {
    const diagnostics = await diagnosticsOf(OLD_TOOL);
    expect(diagnostics.find((d) => d.message.startsWith("unknown field 'classification'"))).toMatchObject({
      id: 'SCHEMA_OLD_FIELD_NO_EQUIVALENT',
      hint: expect.stringContaining('toolgen migrate'),
    });
    expect(diagnostics.find((d) => d.args && 'value' in d.args && d.args.value === 'api_call')).toMatchObject({
      code: 'TG1105',
      hint: expect.stringContaining('toolgen migrate'),
    });
    expect(diagnostics.find((d) => d.message.startsWith("'parameters[0].type'"))).toMatchObject({
      suggestion: 'integer',
    });
  });

  it('keeps every other message as it was', async () => {
    const found = (await diagnosticsOf(OLD_TOOL)).find((d) => d.message.startsWith("unknown field 'descripton'"))!;
    expect(found).toMatchObject({ id: 'SCHEMA_UNKNOWN_FIELD', suggestion: 'description' });
    expect(found.hint).toMatch(/^allowed here: /);
  });
});
