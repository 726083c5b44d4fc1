/** autocannon loads of a run: cleanup() stops one that is still running (after an error or Ctrl-C). */
import autocannon from 'autocannon';
import { onCleanup } from './processes.ts';

const running = new Set<autocannon.Instance>();
onCleanup(() => {
  for (const instance of running) instance.stop();
});

/** Starts an autocannon load whose requests time out after 10 s (unless `options` says otherwise). */
export function startLoad(options: autocannon.Options): autocannon.Instance {
  const instance = autocannon({ timeout: 10, ...options });
  running.add(instance);
  const done = (): void => void running.delete(instance);
  instance.then(done, done);
  return instance;
}
