/**
 * A queue of tasks that run one at a time, each once the one before it settled, in the order they were given. A task
 * that fails rejects its own promise only: the next one runs all the same.
 */
export function oneAtATime(): <T>(task: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (task) => {
    const next = last.then(task);
    last = next.catch(() => undefined);
    return next;
  };
}
