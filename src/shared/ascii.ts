// Whether text is ASCII only: what the fast paths that need no Unicode case or accent folding check first.

const ASCII = /^[\x00-\x7f]*$/;

export const isAscii = (text: string): boolean => ASCII.test(text);
