/**
 * Builds the VS Code extension (src/vscode/) into `dist/vscode/toolgen-vscode-<version>.vsix`, as part
 * of `npm run build`. A .vsix is a zip in the Open Packaging Conventions: `[Content_Types].xml`, an
 * `extension.vsixmanifest`, and the extension under `extension/` with the packages it requires (from
 * this repository's node_modules, as vsce copies them). Written here, with node:zlib, so that the build
 * needs no packaging tool (vsce brings native modules); the same inputs give the same bytes.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = path.join(REPO, 'src/vscode');

/** Every file under a folder, relative to it, sorted; node_modules of a package are not its files. */
function filesUnder(dir, skip = () => false) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .filter((file) => !file.split('/').includes('node_modules') && !skip(file))
    .sort();
}

/** Where Node finds a package from a folder: the nearest node_modules above it that holds it (whatever its exports allow). */
function packageFolder(name, from) {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const folder = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(folder, 'package.json'))) return folder;
    if (path.dirname(dir) === dir) throw new Error(`vsix: ${name} is not installed (npm ci)`);
  }
}

/** The packages the extension requires, and theirs, each with the folder it is installed in. */
function packageClosure(manifest) {
  const found = new Map();
  const visit = (name, from) => {
    if (found.has(name)) return;
    const folder = packageFolder(name, from);
    found.set(name, folder);
    const own = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
    for (const dependency of Object.keys(own.dependencies ?? {})) visit(dependency, folder);
  };
  for (const name of Object.keys(manifest.dependencies ?? {})) visit(name, REPO);
  return [...found].sort(([a], [b]) => (a < b ? -1 : 1));
}

const escapeXml = (text) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

function vsixManifest(manifest) {
  return `<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011" xmlns:d="http://schemas.microsoft.com/developer/vsx-schema-design/2011">
  <Metadata>
    <Identity Language="en-US" Id="${manifest.name}" Version="${manifest.version}" Publisher="${manifest.publisher}" />
    <DisplayName>${escapeXml(manifest.displayName)}</DisplayName>
    <Description xml:space="preserve">${escapeXml(manifest.description)}</Description>
    <Tags>toolgen,yaml,mcp,language-server</Tags>
    <Categories>${escapeXml(manifest.categories.join(','))}</Categories>
    <GalleryFlags>Public</GalleryFlags>
    <Properties>
      <Property Id="Microsoft.VisualStudio.Code.Engine" Value="${escapeXml(manifest.engines.vscode)}" />
      <Property Id="Microsoft.VisualStudio.Code.ExtensionDependencies" Value="" />
      <Property Id="Microsoft.VisualStudio.Code.ExtensionPack" Value="" />
      <Property Id="Microsoft.VisualStudio.Code.ExtensionKind" Value="workspace" />
      <Property Id="Microsoft.VisualStudio.Code.LocalizedLanguages" Value="" />
    </Properties>
    <License>extension/LICENSE.txt</License>
  </Metadata>
  <Installation>
    <InstallationTarget Id="Microsoft.VisualStudio.Code" />
  </Installation>
  <Dependencies />
  <Assets>
    <Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true" />
    <Asset Type="Microsoft.VisualStudio.Services.Content.Details" Path="extension/README.md" Addressable="true" />
    <Asset Type="Microsoft.VisualStudio.Services.Content.License" Path="extension/LICENSE.txt" Addressable="true" />
  </Assets>
</PackageManifest>
`;
}

const CONTENT_TYPES = {
  '.json': 'application/json',
  '.js': 'application/javascript',
  '.cjs': 'application/javascript',
  '.mjs': 'application/javascript',
  '.ts': 'text/plain',
  '.map': 'application/json',
  '.md': 'text/markdown',
  '.txt': 'text/plain',
  '.vsixmanifest': 'text/xml',
};

function contentTypes(names) {
  const extensions = [...new Set(names.map((name) => path.posix.extname(name).toLowerCase()))].sort();
  const defaults = extensions.map(
    (extension) =>
      `<Default Extension="${extension}" ContentType="${CONTENT_TYPES[extension] ?? 'application/octet-stream'}"/>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">${defaults.join('')}</Types>
`;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** A zip of the entries (name → bytes), deflated, dated 1980-01-01 so the same entries give the same bytes. */
export function zip(entries) {
  const locals = [];
  const central = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const nameBytes = Buffer.from(name, 'utf8');
    const packed = deflateRawSync(data, { level: 9 });
    const crc = crc32(data);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4); // version needed
    header.writeUInt16LE(0x0800, 6); // names in UTF-8
    header.writeUInt16LE(8, 8); // deflate
    header.writeUInt16LE(0, 10); // time
    header.writeUInt16LE(0x21, 12); // date: 1980-01-01
    header.writeUInt32LE(crc, 14);
    header.writeUInt32LE(packed.length, 18);
    header.writeUInt32LE(data.length, 22);
    header.writeUInt16LE(nameBytes.length, 26);
    header.writeUInt16LE(0, 28);
    locals.push(header, nameBytes, packed);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt16LE(0, 12);
    entry.writeUInt16LE(0x21, 14);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(packed.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, nameBytes);
    offset += header.length + nameBytes.length + packed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * Writes the .vsix and returns its path.
 *
 * @example buildVsix() // '/repo/dist/vscode/toolgen-vscode-0.1.0.vsix'
 */
export function buildVsix(out = path.join(REPO, 'dist/vscode')) {
  const root = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  const manifest = { ...JSON.parse(readFileSync(path.join(SOURCE, 'package.json'), 'utf8')), version: root.version };
  const entries = new Map();
  for (const file of filesUnder(SOURCE))
    entries.set(
      `extension/${file}`,
      file === 'package.json'
        ? Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)
        : readFileSync(path.join(SOURCE, file)),
    );
  entries.set('extension/LICENSE.txt', Buffer.from(`${root.license} License\n`));
  for (const [name, folder] of packageClosure(manifest)) {
    for (const file of filesUnder(folder, (f) => f.endsWith('.ts') && !f.endsWith('.d.ts')))
      entries.set(`extension/node_modules/${name}/${file}`, readFileSync(path.join(folder, file)));
  }
  entries.set('extension.vsixmanifest', Buffer.from(vsixManifest(manifest)));
  entries.set('[Content_Types].xml', Buffer.from(contentTypes([...entries.keys()])));
  const ordered = [...entries].sort(([a], [b]) =>
    a === '[Content_Types].xml' ? -1 : b === '[Content_Types].xml' ? 1 : a < b ? -1 : 1,
  );
  mkdirSync(out, { recursive: true });
  const file = path.join(out, `${manifest.name}-${manifest.version}.vsix`);
  writeFileSync(file, zip(ordered));
  return file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = buildVsix();
  console.log(`vsix: ${path.relative(process.cwd(), file)} (${Math.round(statSync(file).size / 1024)} KB)`);
}
