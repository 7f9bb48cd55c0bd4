// Unicode lower case without the copy for text it would leave as it is.

/** Code points that toLowerCase changes: exactly Changes_When_Lowercased (checked over every code point). */
const LOWERS = /\p{Changes_When_Lowercased}/u;

/** `s.toLowerCase()`, returning `s` itself when no character of it changes (a scan, cheaper than the copy). */
export const lowerCase = (s: string): string => (LOWERS.test(s) ? s.toLowerCase() : s);
