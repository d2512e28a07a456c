// ESLint rule: the workspace's dependency graph. Apps may import libs, libs never import apps, no app
// imports another app, contracts imports nothing of ours, and every lib a package imports is declared
// in its package.json ("@app/lib-x": "workspace:*"; devDependencies are enough for tests).
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, relative, resolve, sep } from 'node:path';

const KINDS = { apps: 'app', libs: 'lib' };
const KINDS_DIR = { app: 'apps', lib: 'libs' };

/** The workspace package a path lies in: the nearest folder with a package.json directly under apps/ or libs/. */
function packageOf(path) {
  for (let dir = path; dir !== dirname(dir); dir = dirname(dir)) {
    const kind = KINDS[basename(dirname(dir))];
    if (kind && existsSync(resolve(dir, 'package.json'))) {
      return { kind, name: basename(dir), dir, root: dirname(dirname(dir)) };
    }
  }
  return undefined;
}

const manifests = new Map();
function declared(pkg) {
  if (!manifests.has(pkg.dir)) {
    const json = JSON.parse(readFileSync(resolve(pkg.dir, 'package.json'), 'utf8'));
    manifests.set(pkg.dir, {
      dependencies: new Set(Object.keys(json.dependencies ?? {})),
      devDependencies: new Set(Object.keys(json.devDependencies ?? {})),
    });
  }
  return manifests.get(pkg.dir);
}

/** The workspace package an import names: `@app/x` (a lib by its path alias), `@app/lib-x`, `@app/svc-x` or a relative path. */
function targetOf(from, specifier) {
  const named = /^@app\/(lib-|svc-)?([a-z0-9-]+)/.exec(specifier);
  if (named) {
    const kind = named[1] === 'svc-' ? 'app' : 'lib';
    return { kind, name: named[2], byName: true, root: from.root };
  }
  if (specifier.startsWith('.')) return packageOf(resolve(dirname(from.file), specifier));
  return undefined;
}

/** Specs and anything under the package's test/ folder may use devDependencies. */
const isTestFile = (pkg, file) =>
  /\.(spec|test)\.ts$/.test(file) || relative(pkg.dir, file).split(sep).includes('test');

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keep imports inside the workspace dependency graph' },
    schema: [],
    messages: {
      libImportsApp: 'A library never imports an app ({{target}}).',
      appImportsApp: 'An app never imports another app ({{target}}); share the code through a lib.',
      contractsImportsOurs:
        'contracts imports nothing of ours ({{target}}): it is the wire format every package shares.',
      relativeIntoLib: 'Import the lib by its name, @app/{{target}}, not by a relative path.',
      undeclared: 'Declare "@app/lib-{{target}}": "workspace:*" in {{manifest}} ({{section}}).',
    },
  },
  create(context) {
    const file = context.filename;
    const own = packageOf(dirname(file));
    if (!own) return {};
    const from = { ...own, file };

    function check(node, specifier) {
      if (typeof specifier !== 'string') return;
      const target = targetOf(from, specifier);
      if (!target || target.root !== own.root) return;
      if (target.kind === own.kind && target.name === own.name) return;
      const data = { target: target.kind === 'lib' ? target.name : `apps/${target.name}` };
      if (target.kind === 'app') {
        context.report({ node, messageId: own.kind === 'lib' ? 'libImportsApp' : 'appImportsApp', data });
        return;
      }
      if (own.kind === 'lib' && own.name === 'contracts') {
        context.report({ node, messageId: 'contractsImportsOurs', data });
        return;
      }
      if (!target.byName) {
        context.report({ node, messageId: 'relativeIntoLib', data });
        return;
      }
      const deps = declared(own);
      const dep = `@app/lib-${target.name}`;
      const test = isTestFile(own, file);
      if (deps.dependencies.has(dep) || (test && deps.devDependencies.has(dep))) return;
      context.report({
        node,
        messageId: 'undeclared',
        data: {
          target: target.name,
          manifest: `${KINDS_DIR[own.kind]}/${own.name}/package.json`,
          section: test ? 'devDependencies' : 'dependencies',
        },
      });
    }

    const fromSource = (node) => node.source && check(node.source, node.source.value);
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
      TSExternalModuleReference: (node) => node.expression.type === 'Literal' && check(node, node.expression.value),
      CallExpression(node) {
        const [arg] = node.arguments;
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && arg?.type === 'Literal') {
          check(arg, arg.value);
        }
      },
    };
  },
};

export default { rules: { boundaries: rule } };
