import { structure } from "../report/markdown-structure.js";

/**
 * Text a planner or a model might plant in an id, a name, a docstring or a refusal, each of which
 * GitHub would render live: a notification, a link, an image, a hidden marker, an HTML tag.
 */
export const HOSTILE = {
  mention: "@octocat",
  link: "[x](https://evil)",
  image: "![i](https://evil/p.png)",
  comment: "<!-- rpg-forge:marker -->",
  tag: "<img src=x>",
} as const;

/** All of HOSTILE in one string, the way a hostile docstring or reason would carry them. */
export const HOSTILE_TEXT = Object.values(HOSTILE).join(" ");

// What each payload looks like where GitHub renders it: outside fences and code spans, unescaped.
const LIVE: Record<keyof typeof HOSTILE, RegExp> = {
  mention: /@octocat/,
  link: /(?<!\\)\]\(https:\/\/evil|https:\/\/evil/,
  image: /!\[i/,
  comment: /<!-- rpg-forge:marker/,
  tag: /<img/i,
};

/** The Markdown GitHub renders as such: what lies outside fenced blocks and code spans. */
export function renderedText(markdown: string): string {
  return structure(markdown).outside.replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, " ");
}

/** The payloads of HOSTILE that are live in `markdown`; empty when every one is quoted inert. */
export function livePayloads(markdown: string): string[] {
  const text = renderedText(markdown);
  return Object.entries(LIVE)
    .filter(([, live]) => live.test(text))
    .map(([name]) => name);
}
