/**
 * Wraps text someone typed (a customer's or business's name) in Unicode isolates (FSI … PDI)
 * before it goes into a sentence, so an Arabic name in an English sentence, or the reverse,
 * cannot reorder the words around it. For plain strings such as titles and messages; in markup,
 * `<bdi>` does the same.
 */
export function isolate(text: string) {
  return `\u2068${text}\u2069`;
}
