/**
 * What a stand-in received, in order, for tests: the list, and a wait for the first entry (already
 * there or still to come) that matches, failing after a timeout with how many did come.
 */
export function receivedLog<Entry>(standIn: string) {
  const entries: Entry[] = [];
  const waiters = new Set<(entry: Entry) => void>();
  return {
    entries,
    add(entry: Entry) {
      entries.push(entry);
      for (const waiter of waiters) waiter(entry);
    },
    waitFor(predicate: (entry: Entry) => boolean, timeoutMs = 10_000): Promise<Entry> {
      const found = entries.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolveWait, reject) => {
        const waiter = (entry: Entry) => {
          if (!predicate(entry)) return;
          waiters.delete(waiter);
          clearTimeout(timer);
          resolveWait(entry);
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`${standIn}: no matching message within ${timeoutMs} ms (${entries.length} received)`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
  };
}

/** What a stand-in that receives messages offers its tests (the e-mail and push ones): its log, and its end. */
export interface ReceivingStandIn<Message> {
  /** Every message received, in order. */
  messages: Message[];
  /** The first message (already received or still to come) that matches; rejects after timeoutMs. */
  waitFor(predicate: (message: Message) => boolean, timeoutMs?: number): Promise<Message>;
  close(): Promise<void>;
}
