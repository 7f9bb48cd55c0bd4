export const usage = "x"; export async function run() { return 0; }
