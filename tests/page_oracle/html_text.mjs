// The reference side of tests/page_differential.rs's innerHTML test: the text
// a reader sees of HTML set with `dangerouslySetInnerHTML` on a <pre>, as a
// browser parses it (parse5, a fragment in a <pre>), against recipe-drift's
// headless React (src/extract/jsx/react.js, run here in a vm context).
//
//   node html_text.mjs
//
// Reads fixed cases and deterministic random ones (tags, attributes, comments,
// raw-text and RCDATA elements, `hidden`, character references), prints
// {"total": N, "differ": [{html, browser, ours}, ...]} and exits 1 when any
// differ. What a browser shows: text nodes, <br> as a line break, nothing of
// comments or of elements a browser's style sheet does not render (script,
// style, template, title, noscript, noembed, noframes, iframe, datalist, rp)
// or that carry the `hidden` attribute.

import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { parse, parseFragment } from 'parse5';

const NOT_SHOWN = new Set(['script', 'style', 'template', 'title', 'noscript', 'noembed', 'noframes', 'iframe', 'datalist', 'rp']);

function shown(node) {
  if (node.nodeName === '#text') return node.value;
  if (!node.tagName) return '';
  if (NOT_SHOWN.has(node.tagName) || (node.attrs || []).some((a) => a.name === 'hidden')) return '';
  if (node.tagName === 'br') return '\n';
  return (node.childNodes || []).map(shown).join('');
}

function browser(html) {
  const doc = parse('<!DOCTYPE html><body><pre></pre></body>');
  const pre = doc.childNodes[1].childNodes[1].childNodes[0];
  return parseFragment(pre, html).childNodes.map(shown).join('');
}

function ours(htmls) {
  const ctx = vm.createContext({});
  for (const f of ['prelude.js', 'react.js']) {
    vm.runInContext(readFileSync(new URL(`../../src/extract/jsx/${f}`, import.meta.url), 'utf8'), ctx);
  }
  ctx.__rd_targets = htmls.map((h, i) => ({
    name: `T${i}`,
    element: ctx.React.createElement('pre', { dangerouslySetInnerHTML: { __html: h } }),
  }));
  return htmls.map((_, i) => JSON.parse(ctx.__rd.select(i, JSON.stringify({ want: [] }))).state.commands[0]);
}

const FIXED = [
  'sglang serve --tp 2 < in.txt > out.txt', 'a <5 b', 'a << b', 'a <', 'a </', 'a </>b', 'a </5 x>b',
  '<span class="k">sglang</span> serve --model-path m &#45;&#x2d;tp <b>8</b>',
  '<span title="a>b">x</span> y', "<span title='a>b'>x</span> y", 'x <!-- --tp 9 --> y', 'x <!--> y',
  'x <!---> y', 'x <!-- a --!> y', 'x <!-- never closed', 'x <!doctype html> y', 'x <?php echo 1 ?> y',
  'x <script>--tp 9</script> y', 'x <SCRIPT>a</b></scriptx></Script > y', 'x <style>p{}</style> y',
  'x <textarea>\n&lt;t&gt;</textarea> y', 'x <title>t</title> y', 'x <xmp>&lt;b&gt;</xmp> y',
  'x <template>--tp 9</template> y', 'x <span hidden>--tp 9</span> y', 'x <div hidden><div>a</div>b</div> y',
  'x <div><span hidden>a</div>b', 'x <p hidden>a<p>b', 'x <p hidden>a<div>b', 'a<br>b<br/>c</br>d<br hidden>e',
  '<pre>\nfoo</pre>', '<pre>\n\nfoo</pre>', '&amp &ampx &lt5 &nbsp;x &copy2 &amp;&lt;&gt;&quot;&apos;',
  '&#0; &#x110000; &#xD800; &#128; &#x9F; &#45 &#x2d &#x;', '&hyphen;&minus;&ndash; &bogus; & &;',
  'a <b', 'a <b c="unterminated', 'x <plaintext><b>y</b>', 'x <noscript>n</noscript> y',
  'x <iframe>f</iframe> y', 'x <img src=a>y<input>z', '--tp <b>2</b><i>', '<body hidden>x<head hidden>y',
  '&#45;&#45;tp 2 <code>&#x2d;-ep</code>', '<li hidden>a<li>b', '<button hidden>a<button>b',
];

const NAMES = ['b', 'p', 'div', 'span', 'script', 'style', 'textarea', 'title', 'xmp', 'template', 'br', 'pre',
  'li', 'SCRIPT', 'Div', 'noscript', 'img', 'code', 'listing', 'plaintext', 'option', 'a', 'ul', 'h1', 'h2',
  'head', 'body', 'html', 'form', 'button', 'iframe', 'dd', 'dt', 'datalist'];
const TEXTS = ['x', ' ', '\n', '--tp 2', '&amp;', '&lt', '&#45;', '&#x2D', '<', '< 5', '&', '>', '"', "'", 'a&b', '\n\n'];
const ATTRS = [' hidden', ' hidden=""', ' title="a>b"', " x='<p>'", ' y=z', ' /', ''];
const MARKUP = ['<!-- c -->', '<!-->', '<!x>', '<?q>', '</5>', '</>'];

function random(count) {
  let seed = 999;
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const out = [];
  for (let i = 0; i < count; i++) {
    let s = '';
    for (let j = 1 + rnd(10); j > 0; j--) {
      const k = rnd(6);
      const name = NAMES[rnd(NAMES.length)];
      if (k === 0) s += `<${name}${ATTRS[rnd(ATTRS.length)]}>`;
      else if (k === 1) s += `</${name}>`;
      else if (k === 2) s += MARKUP[rnd(MARKUP.length)];
      else s += TEXTS[rnd(TEXTS.length)];
    }
    out.push(s);
  }
  return out;
}

const cases = [...FIXED, ...random(20000)];
const mine = ours(cases);
const differ = [];
cases.forEach((html, i) => {
  const b = browser(html);
  if (b !== mine[i]) differ.push({ html, browser: b, ours: mine[i] });
});
process.stdout.write(JSON.stringify({ total: cases.length, differ: differ.slice(0, 20) }) + '\n');
process.exit(differ.length ? 1 : 0);
