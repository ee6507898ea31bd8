// The channel tests' loopback fake Slack Web API (test/support/fakes/slack.ts) in a process of its
// own, so a profile of the process that calls it does not count its work. Prints its apiUrl on
// the first line; keeps no calls (a long run would fill the memory with them).
import { startFakeSlack } from '../../test/support/fakes/slack.ts';

const slack = await startFakeSlack(process.env.BENCH_SLACK_BOT_TOKEN ?? 'xoxb-bench-0000000001');
process.stdout.write(`${slack.apiUrl}\n`);
setInterval(() => {
  slack.calls.length = 0;
}, 1000).unref();
process.on('SIGTERM', () => {
  void slack.close().then(() => process.exit(0));
});
