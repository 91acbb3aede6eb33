// The reference side of tests/page_differential.rs: the code blocks a reader
// sees on a Markdown or MDX page, as real renderers show them.
//
//   node oracle.mjs FILE...
//
// prints one JSON document: {"files": [{"file": F, ...}]} where, for a `.md`
// page, `site` holds the blocks of micromark + GFM's rendering with raw HTML
// passed through (a docs site) and `github` those of micromark + GFM with
// GitHub's tag filter; for an `.mdx` page, `mdx` holds the blocks of the page
// compiled by @mdx-js/mdx 3 and rendered by React (react-dom/server). A block
// is {"lang": "bash" | null, "text": "..."}: every <pre> of the rendered HTML
// (parsed by parse5, as a browser parses it), the text of its <code> child if
// it has one. A page that fails to compile gives {"file": F, "error": "..."}.

import { readFileSync } from 'node:fs';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { combineHtmlExtensions } from 'micromark-util-combine-extensions';
import { gfmAutolinkLiteralHtml } from 'micromark-extension-gfm-autolink-literal';
import { gfmFootnoteHtml } from 'micromark-extension-gfm-footnote';
import { gfmStrikethroughHtml } from 'micromark-extension-gfm-strikethrough';
import { gfmTableHtml } from 'micromark-extension-gfm-table';
import { gfmTaskListItemHtml } from 'micromark-extension-gfm-task-list-item';
import { evaluate } from '@mdx-js/mdx';
import * as runtime from 'react/jsx-runtime';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { parse } from 'parse5';

function textOf(node) {
  if (node.nodeName === '#text') return node.value;
  // A <template>'s children live in its content fragment: not shown.
  return (node.childNodes || []).map(textOf).join('');
}

function blocks(html) {
  const out = [];
  const walk = (node) => {
    if (node.nodeName === 'pre') {
      const code = (node.childNodes || []).find((c) => c.nodeName === 'code');
      let lang = null;
      if (code) {
        const cls = (code.attrs || []).find((a) => a.name === 'class');
        const m = cls && /(?:^|\s)language-(\S+)/.exec(cls.value);
        if (m) lang = m[1].toLowerCase();
      }
      out.push({ lang, text: textOf(code || node) });
      return;
    }
    for (const c of node.childNodes || []) walk(c);
  };
  walk(parse(html));
  return out;
}

async function read(file) {
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  if (file.endsWith('.mdx')) {
    const { default: Content } = await evaluate(text, { ...runtime, development: false });
    return { file, mdx: blocks(renderToStaticMarkup(createElement(Content))) };
  }
  // GFM both times; the docs site passes raw HTML through as it is, GitHub
  // escapes the tags of its tag filter.
  const site = micromark(text, {
    allowDangerousHtml: true,
    extensions: [gfm()],
    htmlExtensions: [
      combineHtmlExtensions([
        gfmAutolinkLiteralHtml(),
        gfmFootnoteHtml(),
        gfmStrikethroughHtml(),
        gfmTableHtml(),
        gfmTaskListItemHtml(),
      ]),
    ],
  });
  const github = micromark(text, {
    allowDangerousHtml: true,
    extensions: [gfm()],
    htmlExtensions: [gfmHtml()],
  });
  return { file, site: blocks(site), github: blocks(github) };
}

const files = [];
for (const file of process.argv.slice(2)) {
  try {
    files.push(await read(file));
  } catch (e) {
    files.push({ file, error: String(e && e.message ? e.message : e) });
  }
}
process.stdout.write(JSON.stringify({ files }) + '\n');
