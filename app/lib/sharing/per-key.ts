/**
 * State a process keeps for one database handle, translator, telephony client or set of services:
 * made on first use and gone with its key (a WeakMap), never in a module-wide variable, so two
 * apps in one process (the in-process tests, a worker beside a server) never share it.
 */

/** `make(key)`'s value for each key, made once; `forget(key)` drops it, so the next use makes it again. */
export function perKey<K extends WeakKey, V>(make: (key: K) => V): ((key: K) => V) & { forget(key: K): void } {
  const values = new WeakMap<K, V>();
  const get = (key: K) => {
    if (values.has(key)) return values.get(key) as V;
    const value = make(key);
    values.set(key, value);
    return value;
  };
  return Object.assign(get, { forget: (key: K) => void values.delete(key) });
}

/**
 * `check(key)`'s last answer for each key, asked again once it is `maxAgeMs` old or when the
 * caller wants it fresh. A check that fails keeps nothing: the next call asks again.
 */
export function recentAnswers<K extends WeakKey, V>(maxAgeMs: number, check: (key: K) => Promise<V>) {
  const answers = new WeakMap<K, { at: number; value: V }>();
  return async (key: K, options: { fresh?: boolean } = {}): Promise<V> => {
    const known = answers.get(key);
    if (!options.fresh && known && Date.now() - known.at < maxAgeMs) return known.value;
    const value = await check(key);
    answers.set(key, { at: Date.now(), value });
    return value;
  };
}
