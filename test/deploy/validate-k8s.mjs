// Validates Kubernetes objects (a JSON array on stdin) against the API schemas shipped by the
// kubernetes-models packages (ESM only, hence this separate process). Prints one JSON line per
// object: { kind, name, error }, error null when valid.
import * as core from 'kubernetes-models';
import * as prometheus from '@kubernetes-models/prometheus-operator';

const camel = (group) => group.replace(/\.([a-z])/g, (_, c) => c.toUpperCase());

function modelOf(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const pkg = group.endsWith('coreos.com') ? prometheus : core;
  const ns = group ? pkg[camel(group)] : pkg;
  return ns?.[version]?.[kind];
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
for (const obj of JSON.parse(input)) {
  const Model = modelOf(obj.apiVersion, obj.kind);
  let error = null;
  if (!Model) error = `no schema for ${obj.apiVersion} ${obj.kind}`;
  else {
    try {
      new Model(obj).validate();
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
  }
  process.stdout.write(`${JSON.stringify({ kind: obj.kind, name: obj.metadata?.name, error })}\n`);
}
