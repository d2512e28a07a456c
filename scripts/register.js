// Runs the TypeScript sources directly (CLI, local stack, test child processes) with swc,
// honouring the decorator metadata and the @app/* paths of tsconfig.json.
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || require('path').join(__dirname, '..', 'tsconfig.json');
require('@swc-node/register');
