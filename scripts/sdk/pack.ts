import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '..', '..');
/** The SDK's package folder: its manifest, README, CHANGELOG and sources. */
export const SDK_DIR = join(ROOT, 'libs', 'sdk');
/** Where `pnpm sdk:pack` leaves the tarball (git ignores dist/). */
export const DEFAULT_OUT_DIR = join(ROOT, 'dist', 'sdk');

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  [field: string]: unknown;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

/**
 * The SDK's dependencies whose range differs from the workspace's own (root package.json): the
 * package must be tested with what it declares, and the workspace's tests run on the root's.
 */
export function dependencyDrift(sdk: Manifest, workspace: Manifest): string[] {
  return Object.entries(sdk.dependencies ?? {})
    .filter(([name, range]) => workspace.dependencies?.[name] !== range)
    .map(([name, range]) => `${name}: the SDK declares ${range}, the workspace ${workspace.dependencies?.[name]}`);
}

/**
 * Node's ESM loader needs every relative import's file extension (`./client.js`); the sources,
 * shared with the workspace's CommonJS and jest, have none. This adds it in the ESM build's code and
 * declarations (`import("./client")` types included).
 */
function withJsExtensions(context: ts.TransformationContext) {
  const { factory } = context;
  const relativeSpecifier = (node: ts.Node | undefined): node is ts.StringLiteral =>
    node !== undefined && ts.isStringLiteral(node) && node.text.startsWith('.') && !node.text.endsWith('.js');
  const visit = (node: ts.Node): ts.Node => {
    if (ts.isImportDeclaration(node) && relativeSpecifier(node.moduleSpecifier)) {
      return factory.updateImportDeclaration(
        node,
        node.modifiers,
        node.importClause,
        factory.createStringLiteral(`${node.moduleSpecifier.text}.js`),
        node.attributes,
      );
    }
    if (ts.isExportDeclaration(node) && relativeSpecifier(node.moduleSpecifier)) {
      return factory.updateExportDeclaration(
        node,
        node.modifiers,
        node.isTypeOnly,
        node.exportClause,
        factory.createStringLiteral(`${node.moduleSpecifier.text}.js`),
        node.attributes,
      );
    }
    if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      relativeSpecifier(node.argument.literal as ts.Node)
    ) {
      const literal = node.argument.literal as ts.StringLiteral;
      return factory.updateImportTypeNode(
        node,
        factory.createLiteralTypeNode(factory.createStringLiteral(`${literal.text}.js`)),
        node.attributes,
        node.qualifier,
        node.typeArguments,
        node.isTypeOf,
      );
    }
    return ts.visitEachChild(node, visit, context);
  };
  return <T extends ts.Node>(node: T): T => ts.visitNode(node, visit) as T;
}

/** Compiles the SDK's sources (specs left out) into `outDir` as `module` says, with declarations. */
function compile(outDir: string, module: ts.ModuleKind): void {
  const configPath = join(SDK_DIR, 'tsconfig.build.json');
  const { config, error } = ts.readConfigFile(configPath, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, SDK_DIR, { outDir, module }, configPath);
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const esm = module !== ts.ModuleKind.CommonJS;
  const result = program.emit(
    undefined,
    undefined,
    undefined,
    false,
    esm ? { before: [withJsExtensions], afterDeclarations: [withJsExtensions] } : undefined,
  );
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length > 0) {
    throw new Error(
      ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => '\n',
      }),
    );
  }
  // Each folder says how Node loads its .js files, whatever the package's own "type".
  writeFileSync(join(outDir, 'package.json'), `${JSON.stringify({ type: esm ? 'module' : 'commonjs' })}\n`);
}

/**
 * Builds the SDK's npm package into `outDir`: compiled CommonJS (dist/cjs) and ESM (dist/esm), each
 * with its declarations, its manifest, README and CHANGELOG, packed by `npm pack` as a tarball
 * `npm install <tarball>` and `npm publish <tarball>` take. Returns the tarball's path.
 */
export function packSdk(outDir: string = DEFAULT_OUT_DIR): string {
  const manifest = readJson<Manifest>(join(SDK_DIR, 'package.json'));
  const drift = dependencyDrift(manifest, readJson<Manifest>(join(ROOT, 'package.json')));
  if (drift.length > 0) throw new Error(`align libs/sdk/package.json with the workspace:\n${drift.join('\n')}`);
  if (!readFileSync(join(SDK_DIR, 'CHANGELOG.md'), 'utf8').includes(`## ${manifest.version}`)) {
    throw new Error(`libs/sdk/CHANGELOG.md has no "## ${manifest.version}" section: say what this version changes`);
  }
  const stage = join(outDir, 'package');
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  compile(join(stage, 'dist', 'cjs'), ts.ModuleKind.CommonJS);
  compile(join(stage, 'dist', 'esm'), ts.ModuleKind.ES2022);
  for (const file of ['package.json', 'README.md', 'CHANGELOG.md'])
    copyFileSync(join(SDK_DIR, file), join(stage, file));
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', outDir], {
      cwd: stage,
      // pnpm's own settings (npm_config_* when run as `pnpm sdk:pack`) mean nothing to npm.
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_/i.test(k))),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  ) as { filename: string }[];
  rmSync(stage, { recursive: true, force: true });
  return join(outDir, packed[0].filename);
}

if (require.main === module) {
  const at = process.argv.indexOf('--out-dir');
  try {
    const tarball = packSdk(at > 0 ? resolve(process.argv[at + 1]) : DEFAULT_OUT_DIR);
    process.stdout.write(`${relative(process.cwd(), tarball) || tarball}\n`);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
