// Unicode lower case without the copy for text it would leave as it is.

/** Code points that toLowerCase changes: exactly Changes_When_Lowercased (checked over every code point). */
const LOWERS = /\p{Changes_When_Lowercased}/u;

/** `s.toLowerCase()`, returning `s` itself when no character of it changes (a scan, cheaper than the copy). */
export const lowerCase = (s: string): string => (LOWERS.test(s) ? s.toLowerCase() : s);

const UPPER = /[A-Z]/;

/** ASCII letters in lower case, every other character as it is (what SQLite's lower() does): the same length. */
export const asciiLower = (s: string): string => (UPPER.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s);
