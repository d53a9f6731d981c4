/**
 * Under `npm start` a SIGTERM sent to npm alone never reaches us: npm leaves signal delivery to
 * the process group (npm/cli#6684) and exits, and we would be orphaned and keep serving. So when
 * npm started us, treat the loss of our parent as the SIGTERM it did not pass on. Production runs
 * `node server.js` as PID 1 and gets its signals directly; this is only for npm-run processes.
 */
const CHECK_MS = 500;

export function onParentExit(stop: () => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      stop();
    }
  }, CHECK_MS);
  timer.unref();
}
