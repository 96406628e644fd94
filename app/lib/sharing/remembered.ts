/**
 * A memo of values by key, for answers that never change (a formatted date, a route's label, a
 * derived key), bounded: once it holds `max` of them it starts again, so an unending stream of odd
 * keys costs memory up to the bound and no more.
 */
export function rememberedValues<V>(max: number): (key: string, make: () => V) => V {
  const values = new Map<string, V>();
  return (key, make) => {
    let value = values.get(key);
    if (value === undefined) {
      value = make();
      if (values.size >= max) values.clear();
      values.set(key, value);
    }
    return value;
  };
}
