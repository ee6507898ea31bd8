// Plain Node, no loader: the SDK must be JavaScript.
const client = await import('tai-interactions/client');
process.stdout.write(JSON.stringify(Object.keys(client).sort()));
