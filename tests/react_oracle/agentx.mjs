// The React side of recipe-drift's AgentX differential test (tests/agentx_differential.rs).
//
//   node agentx.mjs BUNDLE.js
//
// BUNDLE.js is recipe-drift's bundle of a page that renders one AgentX table
// (`<AgentX data={agentx} />`, the cookbook's `_agentx.jsx` over a data module). With REAL
// React 18 it mounts the table, then for the first hardware and checkpoint clicks every
// deployment, concurrency, enabled KV-offload tier and router, and prints, per state, the text
// of every process block the page renders (`<pre className="sg-agentx-block">`, hidden tabs
// included) as one JSON document:
//   {"states": [{"deployment": ID, "concurrency": "4", "kv": "hicache", "router": "dynamo",
//                "blocks": ["...", ...]}]}
// Any error prints {"error": "..."} and exits 1.

import React from 'react';
import TestRenderer from 'react-test-renderer';
import { loadTargets, silenceConsole, fail } from './oracle.mjs';

const { act, create } = TestRenderer;
globalThis.IS_REACT_ACT_ENVIRONMENT = true;

async function settle(fn) {
  await act(async () => {
    fn();
  });
}

/** The buttons of a control row (the card whose title has class `sg-agentx-row-<row>`). */
function rowButtons(root, row) {
  const cards = root.findAll(
    (n) =>
      n.type === 'div' &&
      n.children.some((c) => typeof c !== 'string' && c.type === 'span' && String(c.props.className ?? '').includes(`sg-agentx-row-${row}`)),
  );
  if (cards.length === 0) throw new Error(`no ${row} row`);
  return cards[cards.length - 1].findAll((n) => n.type === 'button');
}

async function press(button) {
  const target = { type: 'button', value: String(button.props.value ?? '') };
  await settle(() => button.props.onClick({ type: 'click', target, currentTarget: target, preventDefault() {}, stopPropagation() {} }));
}

/** The text of a host node's children. */
const textOf = (n) => n.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');

async function main(argv) {
  if (argv.length !== 1) throw new Error('usage: node agentx.mjs BUNDLE.js');
  silenceConsole();
  const targets = loadTargets(argv[0]);
  if (targets.length !== 1) throw new Error(`expected one AgentX target, found ${targets.length}`);
  let renderer;
  await settle(() => {
    renderer = create(targets[0].element);
  });
  const root = renderer.root;
  const states = [];
  const cells = rowButtons(root, 'cell').map((b) => String(b.props.value));
  for (const cell of cells) {
    await press(rowButtons(root, 'cell').find((b) => String(b.props.value) === cell));
    const concs = rowButtons(root, 'conc').map((b) => String(b.props.value));
    for (const conc of concs) {
      await press(rowButtons(root, 'conc').find((b) => String(b.props.value) === conc));
      const tiers = rowButtons(root, 'kv').filter((b) => !b.props.disabled).map((b) => String(b.props.value));
      for (const kv of tiers) {
        await press(rowButtons(root, 'kv').find((b) => String(b.props.value) === kv));
        const routers = rowButtons(root, 'router').map((b) => String(b.props.value));
        for (const router of routers) {
          await press(rowButtons(root, 'router').find((b) => String(b.props.value) === router));
          const blocks = root
            .findAll((n) => n.type === 'pre' && n.props.className === 'sg-agentx-block')
            .map(textOf);
          states.push({ deployment: cell, concurrency: conc.split(',').join('/'), kv, router, blocks });
        }
      }
    }
  }
  process.stdout.write(JSON.stringify({ states }) + '\n');
}

main(process.argv.slice(2)).catch(fail);
