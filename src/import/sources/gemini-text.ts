// What the person said in a Gemini CLI turn: the typed text without what the CLI or a hook adds around it, and the
// text parts of a message's content (thoughts left out). Chats and /chat save checkpoints read turns alike.
import { isObject } from "../read-lines.ts";

type Rec = Record<string, unknown>;

const REFERENCED = /\n?--- Content from referenced files ---[\s\S]*?(?:\n--- End of content ---|$)/g;

/** What a SessionStart or BeforeAgent hook adds to a prompt: its output, which the CLI hides when it shows the chat. */
const HOOK_CONTEXT = /<hook_context>[\s\S]*?<\/hook_context>/g;

/**
 * What the person typed: the displayed text when the CLI recorded one, else the content without the files an
 * @-reference pulled in (the CLI appends them between "--- Content from referenced files ---" and its end line).
 * Hook context is left out of both (the non-interactive CLI puts it before the prompt, in the displayed text too).
 */
export function userText(m: Rec): string {
  const shown = contentText(m.displayContent).replace(HOOK_CONTEXT, "").trim();
  if (shown !== "") return shown;
  return promptText(contentText(m.content));
}

/** Text the CLI adds itself as a user turn (or, its turns merged, as a part of one): see INJECTED. */
export const isInjected = (text: string): boolean => INJECTED.test(text.trim());

/** A prompt as the model got it, as the person typed it; "" for a turn the CLI added itself. */
export function promptText(sent: string): string {
  const text = steeringHint(sent.replace(REFERENCED, "").replace(HOOK_CONTEXT, "").trim());
  return INJECTED.test(text) ? "" : text;
}

/**
 * What the CLI itself adds to the chat as a user turn (recorded like one): the IDE companion's editor context, a shell
 * command run with ! and its output, leaving plan mode, the folders /directory add brought in, the session context
 * (a chat's first turn; the older builds' form without its <session_context> tag in checkpoints).
 */
const INJECTED =
  /^(?:Here is (?:the user's editor context as a JSON object|a summary of changes in the user's editor context, in JSON format)\. This is for your information only\.|I ran the following shell command:\n```sh\n|(?:User has manually exited Plan Mode|Plan approved)\. Switching to |- \*\*Workspace Directories:\*\*\n|<session_context>|This is the Gemini CLI\. We are setting up the context for our chat\.)/;

/**
 * Model steering (experimental.modelSteering) sends what the person typed during a turn wrapped in the CLI's own
 * instruction: "User steering update:" or "User hints:", the words in <user_input> (or quoted, in the first
 * builds), then "Internal instruction: …". The words are the message.
 */
const STEERING =
  /^User (?:steering update:\n<user_input>\n([\s\S]*?)\n<\/user_input>|steering update: "([\s\S]*)"|hints:\n<user_input>\n([\s\S]*?)\n<\/user_input>\n)\nInternal instruction: Re-evaluate the active plan/;

function steeringHint(text: string): string {
  const m = STEERING.exec(text);
  return m ? (m[1] ?? m[2] ?? m[3]!).trim() : text;
}

/** Message content: a string, or parts of which the text ones count (thoughts are a separate field, left out). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content.trim();
  if (Array.isArray(content)) {
    return content
      .map((p) => (isObject(p) && typeof p.text === "string" && p.thought !== true ? p.text : ""))
      .join("")
      .trim();
  }
  return "";
}
