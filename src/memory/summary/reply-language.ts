// reply_lang: the language rule given to the model, and the deterministic Simplified -> Traditional
// conversion of the summary text (opencc-js, loaded only when Chinese text is present).
import { clip } from "./summary-rules.ts";
import type { Summary } from "./summary-types.ts";

const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
const HAN_G = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/g;
const KANA = /[\u3040-\u30ff\u31f0-\u31ff]/;
const KANA_G = /[\u3040-\u30ff\u31f0-\u31ff]/g;

/** Explicit tags that name Traditional Chinese (zh-TW, zh-HK, zh-MO, zh-Hant…, "Traditional Chinese", 繁體, 正體). */
const TRADITIONAL_TAG = /^zh[-_](?:tw|hk|mo|hant)\b|traditional|繁體|繁体|正體/i;
/** Any other Chinese choice: zh, zh-CN, zh-SG, zh-Hans…, "Simplified Chinese", "Chinese", 中文, 简体. */
const CHINESE_TAG = /^zh\b|^cmn\b|chinese|simplified|中文|简体|簡體|汉语|漢語/i;

/**
 * True when Chinese text of the summary is converted to Traditional: with `auto`, an explicit Traditional
 * tag, or a language that is not Chinese at all (quoted Chinese then stays Traditional). An explicit
 * Simplified or unmarked Chinese choice (zh-CN, zh-Hans, zh) is followed as given.
 */
export function wantsTraditional(replyLang: string): boolean {
  const lang = replyLang.trim();
  return lang.toLowerCase() === "auto" || TRADITIONAL_TAG.test(lang) || !CHINESE_TAG.test(lang);
}

/** The sentence of the summary prompt that says which language to write in. */
export function languageRule(replyLang: string): string {
  const chinese = "Chinese is always written in Traditional Chinese (繁體中文), never in Simplified Chinese.";
  if (replyLang.trim().toLowerCase() === "auto") {
    return `Write every text field in the language the conversation is mostly written in. ${chinese}`;
  }
  // An explicit language is followed as given: zh-CN or zh-Hans means Simplified, never "Traditional" as well.
  const rule = `Write every text field in this language: ${replyLang.trim()}.`;
  return wantsTraditional(replyLang) ? `${rule} ${chinese}` : rule;
}

/** True when the output language is Japanese, whose kanji must not be converted. */
export function isJapaneseOutput(replyLang: string, conversation: string): boolean {
  const lang = replyLang.trim().toLowerCase();
  if (lang.startsWith("ja") || lang.includes("japan") || lang.includes("日本")) return true;
  if (lang !== "auto") return false;
  const kana = conversation.match(KANA_G)?.length ?? 0;
  const han = conversation.match(HAN_G)?.length ?? 0;
  return kana > 0 && kana >= (kana + han) * 0.1;
}

type Convert = (text: string) => string;
let converter: Promise<Convert> | undefined;

function loadConverter(): Promise<Convert> {
  converter ??= import("opencc-js/cn2t").then((m) => m.Converter({ from: "cn", to: "tw" }));
  return converter;
}

/** Text that is Chinese: Han characters and no kana (a Japanese fragment is left alone). */
function isChineseText(text: string): boolean {
  return HAN.test(text) && !KANA.test(text);
}

/** Convert every Chinese text field to Traditional Chinese (Taiwan). Returns the number of fields changed. */
export async function toTraditional(summary: Summary): Promise<{ summary: Summary; changed: number }> {
  const fields: string[] = [
    ...summary.key_decisions,
    ...summary.past_discussions.flatMap((p) => [p.topic, p.description, p.direction]),
    ...Object.values(summary.current_discussion),
  ];
  if (!fields.some(isChineseText)) return { summary, changed: 0 };
  const convert = await loadConverter();
  let changed = 0;
  const c = (text: string) => {
    if (!isChineseText(text)) return text;
    // A few characters become a surrogate pair in Traditional (㓆 -> 𠗣): the field may grow past its limit.
    const out = clip(convert(text));
    if (out !== text) changed++;
    return out;
  };
  return {
    summary: {
      key_decisions: summary.key_decisions.map(c),
      past_discussions: summary.past_discussions.map((p) => ({
        topic: c(p.topic),
        description: c(p.description),
        direction: c(p.direction),
        last_discussed: p.last_discussed,
      })),
      current_discussion: {
        topic: c(summary.current_discussion.topic),
        description: c(summary.current_discussion.description),
        perspectives: c(summary.current_discussion.perspectives),
        direction: c(summary.current_discussion.direction),
      },
    },
    changed,
  };
}
