/**
 * A call, fallback, allowed next tool or stub names a tool that is not there: what to say. A local
 * name is looked for among the YAML tools; a `<server>/<tool>` name among the servers under
 * mcpServers and the APIs under apis, and the tools or operations the locks pin for them, each with a
 * "did you mean" among those names.
 */
import { closestName } from '../../language/suggest.js';
import { diagnostic, type Diagnostic, type Location } from '../diagnostics/diagnostic.js';
import { plainList } from '../diagnostics/format.js';
import { splitRemoteName, type Catalogue } from '../resolve/catalogue.js';

/**
 * The diagnostic for a tool name nothing answers to; null when the name is a tool's, or one whose
 * problem is reported already (a YAML that does not validate, a server never pulled).
 *
 * @example missingTool('filez/read_file', catalogue, at, 'call')?.message // "no MCP server named 'filez' (in 'filez/read_file'); did you mean 'files/read_file'?"
 */
export function missingTool(
  name: string,
  catalogue: Catalogue,
  where: Location,
  use: 'call' | 'stub',
): Diagnostic | null {
  if (catalogue.signature(name) || catalogue.isBroken(name)) return null;
  if (!splitRemoteName(name)) {
    // A remote tool's own name without its server is an easy slip: suggest the full name.
    const remote = catalogue.remoteEntries().find((entry) => entry.tool === name)?.name;
    const suggestion = remote ?? closestName(name, catalogue.names());
    return use === 'call'
      ? diagnostic('UNKNOWN_TOOL', { name }, where, { suggestion })
      : diagnostic('UNKNOWN_STUB', { name }, where, { suggestion });
  }
  const found = catalogue.lookupRemote(name);
  if (found.kind === 'no-server') {
    const server = closestName(found.server, found.servers);
    const tool = splitRemoteName(name)!.tool;
    const full = server === null ? null : `${server}/${tool}`;
    const suggestion = full !== null && catalogue.remote(full) ? full : server;
    return diagnostic(
      found.apis ? 'UNKNOWN_SERVER_OR_API' : 'UNKNOWN_SERVER',
      { server: found.server, name, servers: plainList(found.servers, 'none') },
      where,
      { suggestion },
    );
  }
  if (found.kind === 'no-tool') {
    const tool = closestName(found.tool, found.tools);
    return diagnostic(
      found.api ? 'UNKNOWN_OPERATION' : 'UNKNOWN_REMOTE_TOOL',
      { server: found.server, tool: found.tool, tools: plainList(found.tools, 'none') },
      where,
      { suggestion: tool === null ? null : `${found.server}/${tool}` },
    );
  }
  return null;
}
