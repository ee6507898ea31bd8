// Plain Node, no loader, and none of openai, @openai/agents or ai installed: the framework
// adapters use those packages for their types only, so they load without them.
const openai = await import('tai-interactions/openai');
const aiSdk = await import('tai-interactions/ai-sdk');
process.stdout.write(
  JSON.stringify({ openai: Object.keys(openai).sort(), aiSdk: Object.keys(aiSdk).sort() }),
);
