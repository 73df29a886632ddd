/**
 * Remote tools as the compiler will generate them (`generated/servers/<server>.ts`): definitions
 * whose schemas were copied verbatim from the `tools/list` of the real servers (version 2026.8.31 of
 * @modelcontextprotocol/server-everything, -memory and -filesystem), under the server names the
 * tests give them.
 */
import { defineRemoteTool } from '../../../src/runtime/index.js';

export const everythingEcho = defineRemoteTool<Record<string, unknown>, unknown>({
  server: 'everything',
  tool: 'echo',
  title: 'Echo Tool',
  description: 'Echoes back the input string',
  parameters: {
    type: 'object',
    properties: { message: { type: 'string', description: 'Message to echo' } },
    required: ['message'],
    $schema: 'http://json-schema.org/draft-07/schema#',
  },
  returns: null,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});

export const everythingGetStructuredContent = defineRemoteTool<Record<string, unknown>, Record<string, unknown>>({
  server: 'everything',
  tool: 'get-structured-content',
  title: 'Get Structured Content Tool',
  description: 'Returns structured content along with an output schema for client data validation',
  parameters: {
    type: 'object',
    properties: {
      location: { type: 'string', enum: ['New York', 'Chicago', 'Los Angeles'], description: 'Choose city' },
    },
    required: ['location'],
    $schema: 'http://json-schema.org/draft-07/schema#',
  },
  returns: {
    type: 'object',
    properties: {
      temperature: { type: 'number', description: 'Temperature in celsius' },
      conditions: { type: 'string', description: 'Weather conditions description' },
      humidity: { type: 'number', description: 'Humidity percentage' },
    },
    required: ['temperature', 'conditions', 'humidity'],
    $schema: 'http://json-schema.org/draft-07/schema#',
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});

export const everythingGetSum = defineRemoteTool<Record<string, unknown>, unknown>({
  server: 'everything',
  tool: 'get-sum',
  title: 'Get Sum Tool',
  description: 'Returns the sum of two numbers',
  parameters: {
    type: 'object',
    properties: {
      a: { type: 'number', description: 'First number' },
      b: { type: 'number', description: 'Second number' },
    },
    required: ['a', 'b'],
    $schema: 'http://json-schema.org/draft-07/schema#',
  },
  returns: null,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});

export const everythingGetTinyImage = defineRemoteTool<Record<string, unknown>, unknown>({
  server: 'everything',
  tool: 'get-tiny-image',
  title: 'Get Tiny Image Tool',
  description: 'Returns a tiny MCP logo image.',
  parameters: { type: 'object', properties: {}, $schema: 'http://json-schema.org/draft-07/schema#' },
  returns: null,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});

export const everythingTriggerLongRunningOperation = defineRemoteTool<Record<string, unknown>, unknown>({
  server: 'everything',
  tool: 'trigger-long-running-operation',
  title: 'Trigger Long Running Operation Tool',
  description: 'Demonstrates a long running operation with progress updates.',
  parameters: {
    type: 'object',
    properties: {
      duration: { default: 10, description: 'Duration of the operation in seconds', type: 'number' },
      steps: { default: 5, description: 'Number of steps in the operation', type: 'number' },
    },
    $schema: 'http://json-schema.org/draft-07/schema#',
  },
  returns: null,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});

export const memoryCreateEntities = defineRemoteTool<Record<string, unknown>, Record<string, unknown>>({
  server: 'memory',
  tool: 'create_entities',
  title: 'Create Entities',
  description: 'Create multiple new entities in the knowledge graph',
  parameters: {
    type: 'object',
    properties: {
      entities: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'The name of the entity' },
            entityType: { type: 'string', description: 'The type of the entity' },
            observations: {
              type: 'array',
              items: { type: 'string' },
              description: 'An array of observation contents associated with the entity',
            },
          },
          required: ['name', 'entityType', 'observations'],
        },
      },
    },
    required: ['entities'],
    $schema: 'http://json-schema.org/draft-07/schema#',
  },
  returns: {
    type: 'object',
    properties: {
      entities: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'The name of the entity' },
            entityType: { type: 'string', description: 'The type of the entity' },
            observations: {
              type: 'array',
              items: { type: 'string' },
              description: 'An array of observation contents associated with the entity',
            },
          },
          required: ['name', 'entityType', 'observations'],
          additionalProperties: false,
        },
      },
    },
    required: ['entities'],
    $schema: 'http://json-schema.org/draft-07/schema#',
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
});

export const memoryReadGraph = defineRemoteTool<Record<string, unknown>, Record<string, unknown>>({
  server: 'memory',
  tool: 'read_graph',
  title: 'Read Graph',
  description: 'Read the entire knowledge graph',
  parameters: { type: 'object', properties: {}, $schema: 'http://json-schema.org/draft-07/schema#' },
  returns: {
    type: 'object',
    properties: {
      entities: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'The name of the entity' },
            entityType: { type: 'string', description: 'The type of the entity' },
            observations: {
              type: 'array',
              items: { type: 'string' },
              description: 'An array of observation contents associated with the entity',
            },
          },
          required: ['name', 'entityType', 'observations'],
          additionalProperties: false,
        },
      },
      relations: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            from: { type: 'string', description: 'The name of the entity where the relation starts' },
            to: { type: 'string', description: 'The name of the entity where the relation ends' },
            relationType: { type: 'string', description: 'The type of the relation' },
          },
          required: ['from', 'to', 'relationType'],
          additionalProperties: false,
        },
      },
    },
    required: ['entities', 'relations'],
    $schema: 'http://json-schema.org/draft-07/schema#',
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});

export const filesReadTextFile = defineRemoteTool<Record<string, unknown>, Record<string, unknown>>({
  server: 'files',
  tool: 'read_text_file',
  title: 'Read Text File',
  description:
    "Read the complete contents of a file from the file system as text. Handles various text encodings and provides detailed error messages if the file cannot be read. Use this tool when you need to examine the contents of a single file. Use the 'head' parameter to read only the first N lines of a file, or the 'tail' parameter to read only the last N lines of a file. Operates on the file as text regardless of extension. Only works within allowed directories.",
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      tail: { description: 'If provided, returns only the last N lines of the file', type: 'number' },
      head: { description: 'If provided, returns only the first N lines of the file', type: 'number' },
    },
    required: ['path'],
    $schema: 'http://json-schema.org/draft-07/schema#',
  },
  returns: {
    type: 'object',
    properties: { content: { type: 'string' } },
    required: ['content'],
    $schema: 'http://json-schema.org/draft-07/schema#',
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
});

export const filesListAllowedDirectories = defineRemoteTool<Record<string, unknown>, Record<string, unknown>>({
  server: 'files',
  tool: 'list_allowed_directories',
  title: 'List Allowed Directories',
  description:
    'Returns the list of directories that this server is allowed to access. Subdirectories within these allowed directories are also accessible. Use this to understand which directories and their nested paths are available before trying to access files.',
  parameters: { type: 'object', properties: {}, $schema: 'http://json-schema.org/draft-07/schema#' },
  returns: {
    type: 'object',
    properties: { content: { type: 'string' } },
    required: ['content'],
    $schema: 'http://json-schema.org/draft-07/schema#',
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
});
