// A process started by `npm run dev` (scripts/dev.ts) has an IPC channel to it. The channel closes when the
// parent exits for any reason, SIGKILL included, so the child can stop instead of holding its port as an orphan.
// Started any other way (production, tests, a process manager) there is no channel and this does nothing.
export function onParentExit(stop: () => unknown): void {
  if (!process.send) return;
  process.once('disconnect', () => void stop());
  process.channel?.unref(); // the channel alone must not keep the process alive
}
