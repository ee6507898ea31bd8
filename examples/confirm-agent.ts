// The quick start's agent: asks a yes/no question and blocks until a person answers it (from the
// inbox, the `tai-interactions` CLI or the API), then prints the answer. It survives holds, dropped
// connections and server restarts on its own: askUser re-attaches and never asks twice.
//
//   terminal 1:  npm start                                  (prints a one-off admin key)
//   terminal 2:  TAI_API_KEY=<key> npx tsx examples/confirm-agent.ts
//   terminal 3:  TAI_API_KEY=<key> node bin/tai-interactions.mjs interactions list
//                TAI_API_KEY=<key> node bin/tai-interactions.mjs interactions answer <id> --answer true
//   (installed, the command is `tai-interactions`, or `npx tai-interactions` in the project)
//
// TAI_URL points elsewhere than http://127.0.0.1:4000 if the server is not there.
import { CancelledError, createInteractionsClient, TimedOutError } from 'tai-interactions/client';

const client = createInteractionsClient({
  url: process.env.TAI_URL ?? 'http://127.0.0.1:4000',
  apiKey: process.env.TAI_API_KEY,
});

try {
  const approved = await client.askUser(
    { text: 'Deploy build 42 to production?', format: 'CONFIRM', timeoutSeconds: 600 },
    {
      onAsked: (question) => {
        console.log(`Asked ${question.id}; waiting for an answer. Answer it with:`);
        console.log(`  tai-interactions interactions answer ${question.id} --answer true`);
      },
    },
  );
  // `approved` is a boolean: the format decides the answer's type.
  console.log(approved ? 'Answer: yes, deploying.' : 'Answer: no, not deploying.');
} catch (err) {
  if (err instanceof TimedOutError) console.log('Nobody answered in time.');
  else if (err instanceof CancelledError)
    console.log(`The question was cancelled${err.reason ? `: ${err.reason}` : ''}.`);
  else throw err;
  process.exitCode = 1;
}
