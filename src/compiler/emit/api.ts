/**
 * Stage 6 for the operations of HTTP APIs: a module per API (`templates/api-operations.ts.hbs`: per
 * operation its input and output types, typed from the pinned schemas, its `defineApiOperation`
 * definition and a typed function), and `apis.ts` (`templates/apis.ts.hbs`), which the index hands
 * to `HttpApis`.
 */
import type { JsonSchema } from '../../language/json.js';
import type { LoweredApi, LoweredApisFile, LoweredOperation } from '../lower/unit.js';
import type { OutputFile } from './emit.js';
import {
  commentText,
  declaredObjectType,
  declaredReturnType,
  docComment,
  printValue,
  quote,
} from '../../language/print.js';
import { HTTP_MODULE, RUNTIME_MODULE } from './runtime-module.js';
import type { TemplateSet } from './templates.js';
import { tidy } from './tidy.js';

/**
 * The module of one API's operations.
 *
 * @example emitApi(api, templates).path // '/p/generated/apis/pets.ts'
 */
export function emitApi(api: LoweredApi, templates: TemplateSet): OutputFile {
  const view = {
    source: commentText(api.source),
    apiComment: quote(api.name),
    runtimeModule: quote(RUNTIME_MODULE),
    operations: api.operations.map((operation) => operationView(api.name, operation)),
  };
  return { path: api.path, content: tidy(templates.render('api-operations', view)) };
}

/**
 * `apis.ts`: how each declared API is reached.
 *
 * @example emitApisFile(lowered, templates).path // '/p/generated/apis.ts'
 */
export function emitApisFile(lowered: LoweredApisFile, templates: TemplateSet): OutputFile {
  const view = { source: commentText(lowered.source), httpModule: quote(HTTP_MODULE), apis: printValue(lowered.apis) };
  return { path: lowered.path, content: tidy(templates.render('apis', view)) };
}

function operationView(api: string, operation: LoweredOperation) {
  const { names } = operation;
  const inputName = `${names.typeName}Input`;
  const outputName = `${names.typeName}Output`;
  const label = commentText(operation.name);
  return {
    nameComment: label,
    requestComment: commentText(`${operation.method.toUpperCase()} ${operation.path}`),
    definitionName: `${names.functionName}Definition`,
    functionName: names.functionName,
    inputName,
    outputName,
    inputType: `${docComment(`What \`${label}\` takes: each parameter by its key, and \`body\`.`)}export type ${inputName} = ${declaredObjectType(operation.input)};`,
    outputType: outputDeclaration(outputName, label, operation.output),
    apiLiteral: quote(api),
    operationLiteral: quote(operation.operation),
    methodLiteral: quote(operation.method),
    pathLiteral: quote(operation.path),
    descriptionLiteral: quote(operation.description),
    parameters: printValue(operation.parameters, '  '),
    body: printValue(operation.body, '  '),
    success: printValue(operation.success, '  '),
    input: printValue(operation.input, '  '),
    output: printValue(operation.output, '  '),
    functionDoc: docComment(operation.description),
  };
}

/** The output type: from the success body's schema, or `unknown` when it has none. */
function outputDeclaration(name: string, label: string, output: JsonSchema | null): string {
  if (output === null)
    return `${docComment(`What \`${label}\` returns: its document gives no JSON schema for a success response, so its shape is unknown.`)}export type ${name} = unknown;`;
  const doc = docComment(`What \`${label}\` returns: the body of its success response.`);
  return `${doc}export type ${name} = ${declaredReturnType(output)};`;
}
