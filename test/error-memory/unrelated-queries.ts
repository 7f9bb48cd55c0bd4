// Queries unrelated to any tool error, for error memory's off-topic measure: everyday sentences, and seeded
// nonsense (pairs of unrelated words, keyboard mashes). A search for one of them should return no record.
export const EVERYDAY_QUERIES: readonly string[] = [
  "what should I cook for dinner tonight",
  "the cat sleeps on the warm windowsill all afternoon",
  "book a table for four at the italian restaurant",
  "how tall is the eiffel tower",
  "my grandmother knits scarves every winter",
  "the football match ended in a draw",
  "recommend a good novel about the sea",
  "the garden needs watering after the hot weekend",
  "which train goes to the airport in the morning",
  "she painted the kitchen a pale shade of green",
  "the birthday party starts at seven",
  "learn to play the violin as an adult",
  "we hiked along the river until sunset",
  "the bakery on the corner sells fresh croissants",
  "my sister adopted a puppy last spring",
  "the museum opens late on fridays",
  "plant tomatoes after the last frost",
  "the wedding photos came out beautifully",
  "grandpa tells stories about his sailing days",
  "the choir rehearses every thursday evening",
];

const NONSENSE_WORDS = (
  "xyzzy plugh quasar tundra walrus zeppelin kumquat marimba obsidian gazebo trombone nebula fjord cactus " +
  "abacus lemur sprocket wombat paprika glacier hammock igloo jigsaw kayak lantern mongoose nectar origami pelican"
).split(" ");

/** `count` seeded nonsense queries: two unrelated words, or a keyboard mash. */
export function nonsenseQueries(count: number, seed = 7): string[] {
  let x = seed >>> 0;
  const rnd = () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)]!;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 3 === 2) {
      const keys = "qwertyuiopasdfghjklzxcvbnm";
      out.push(Array.from({ length: 6 + Math.floor(rnd() * 6) }, () => pick(keys.split(""))).join(""));
    } else out.push(`${pick(NONSENSE_WORDS)} ${pick(NONSENSE_WORDS)}`);
  }
  return out;
}

export const UNRELATED_QUERIES: readonly string[] = [...EVERYDAY_QUERIES, ...nonsenseQueries(30)];
