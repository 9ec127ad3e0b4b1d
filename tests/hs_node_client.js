#!/usr/bin/env node
// Drives a HandlerSocket server with the published npm client node-handlersocket
// 0.1.0 (2011, pure JavaScript), used unmodified and only through its public API:
// hs.connect, Connection.openIndex/close, Index.find/insert/update/delete/
// increment/decrementAndGet/updateAndGet, hs.in, hs.filter, hs.while.
//
//   NODE_PATH=<dir>/node_modules node tests/hs_node_client.js HOST RD_PORT WR_PORT DB
//
// Expects the database DB to hold the table
//   nodehs (id INT NOT NULL PRIMARY KEY, k INT NULL, v VARCHAR(100) utf8mb4 NULL,
//           n INT NOT NULL DEFAULT 0, KEY k_1 (k))   (empty)
// and tests/hs_scripts.py's FIXTURES table sbtest1 (ids 1-6, AUTO_INCREMENT).
// Prints one JSON object per step on stdout:
//   {"step": NAME, "records": [[...], ...]}   find / *AndGet (NULL is null)
//   {"step": NAME, "result": N}               insert / update / delete / increment
//   {"step": NAME, "error": "CODE MESSAGE"}   only for steps that expect an error
// Any other error callback or connection 'error' event: message on stderr, exit 1.
// Used by tests/test_handlersocket.py::test_both_node_handlersocket_client.
'use strict';

const hs = require('node-handlersocket');

const [host, rdPort, wrPort, db] = process.argv.slice(2);
if (!db) {
  console.error('usage: hs_node_client.js HOST RD_PORT WR_PORT DB');
  process.exit(2);
}

function die(msg) {
  process.stderr.write('hs_node_client: ' + msg + '\n');
  process.exit(1);
}

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function connect(port) {
  return new Promise((resolve) => {
    const con = hs.connect({ host: host, port: Number(port) });
    con.on('error', (err) => die('connection to port ' + port + ': ' + err));
    con.on('connect', () => resolve(con));
  });
}

// Calls fn(...args, callback) and resolves with the callback's result; an error
// callback ends the process unless the step expects one (then resolves {error}).
function call(step, expectError, fn, ...args) {
  return new Promise((resolve) => {
    fn(...args, (err, res) => {
      if (err) {
        if (!expectError) die(step + ': ' + err.message);
        resolve({ error: err.message });
      } else {
        if (expectError) die(step + ': expected an error, got ' + JSON.stringify(res));
        resolve({ value: res });
      }
    });
  });
}

async function open(con, step, table, index, cols, fcols) {
  const args = [db, table, index, cols];
  if (fcols) args.push(fcols);
  const r = await call(step, false, con.openIndex.bind(con), ...args);
  return r.value;
}

async function records(step, index, method, ...args) {
  const r = await call(step, false, index[method].bind(index), ...args);
  emit({ step: step, records: r.value });
}

async function result(step, index, method, ...args) {
  const r = await call(step, false, index[method].bind(index), ...args);
  emit({ step: step, result: r.value });
}

async function error(step, obj, method, ...args) {
  const r = await call(step, true, obj[method].bind(obj), ...args);
  emit({ step: step, error: r.error });
}

// Every byte 0x00-0x0f (travels as 0x01 byte+0x40), TAB/LF/CR among them, non-ASCII.
const CTRL = 'tab\there\nlf\rcr ' +
  Array.from({ length: 16 }, (_, i) => String.fromCharCode(i)).join('') +
  ' h\u00e9llo \u2713 end';

async function main() {
  const wr = await connect(wrPort);
  const rd = await connect(rdPort);
  const cols = ['id', 'k', 'v', 'n'];

  const w = await open(wr, 'open_wr', 'nodehs', 'PRIMARY', cols);
  const wn = await open(wr, 'open_wr_n', 'nodehs', 'PRIMARY', ['n']);
  const wa = await open(wr, 'open_wr_auto', 'sbtest1', 'PRIMARY', ['k', 'c', 'pad']);
  const r = await open(rd, 'open_rd', 'nodehs', 'PRIMARY', cols);
  const rk = await open(rd, 'open_rd_k', 'nodehs', 'k_1', ['id', 'k', 'v'], ['n']);
  await error('open_missing_table', rd, 'openIndex', db, 'nosuch', 'PRIMARY', ['id']);

  await result('insert_1', w, 'insert', [1, 10, 'plain', 0]);
  await result('insert_2_ctrl', w, 'insert', [2, 20, CTRL, 5]);
  await result('insert_3_null', w, 'insert', [3, null, null, 7]);
  await result('insert_4_empty', w, 'insert', [4, 20, '', 0]);
  await result('insert_5', w, 'insert', [5, 30, 'f\u00fcnf', 1]);
  await error('insert_dup', w, 'insert', [1, 99, 'dup', 0]);
  await result('insert_auto_inc', wa, 'insert', [70, 'c7', 'p7']);
  await error('insert_on_rd_port', r, 'insert', [9, 9, 'nine', 9]);

  await records('find_eq_2', r, 'find', '=', [2]);
  await records('find_eq_3_null', r, 'find', '=', [3]);
  await records('find_eq_missing', r, 'find', '=', [42]);
  await records('find_ge_2_limit_3', r, 'find', '>=', [2], { limit: 3 });
  await records('find_ge_1_limit_2_offset_3', r, 'find', '>=', [1], { limit: 2, offset: 3 });
  await records('find_lt_4', r, 'find', '<', [4], { limit: 10 });
  await records('find_k_eq_20', rk, 'find', '=', [20], { limit: 10 });
  await records('find_in', r, 'find', '=', [hs.in(5, 1, 9, 3)], { limit: 10 });
  await records('find_k_filter', rk, 'find', '>=', [10], { limit: 10, filters: [hs.filter('n', '>', 0)] });
  await records('find_k_while', rk, 'find', '>=', [10], { limit: 10, filters: [hs.while('n', '<', 5)] });

  // pipelined: three requests written before the first answer is read
  const piped = await Promise.all([
    call('pipe_a', false, r.find.bind(r), '=', [1]),
    call('pipe_b', false, r.find.bind(r), '=', [5]),
    call('pipe_c', false, r.find.bind(r), '>', [3], { limit: 5 }),
  ]);
  emit({ step: 'pipelined', records: piped.map((p) => p.value) });

  await result('update_4', w, 'update', '=', [4], [4, 40, 'upd\tated', 2]);
  await records('update_and_get_1', w, 'updateAndGet', '=', [1], [1, 11, null, 0]);
  await result('increment_5', wn, 'increment', '=', [5], [10]);
  await records('decrement_and_get_5', wn, 'decrementAndGet', '=', [5], [3]);
  await result('delete_3', w, 'delete', '=', [3]);
  await result('delete_missing', w, 'delete', '=', [42]);

  await records('find_all_after', r, 'find', '>=', [0], { limit: 100 });
  await records('find_k_eq_20_after', rk, 'find', '=', [20], { limit: 10 });

  wr.close();
  rd.close();
}

main().catch((e) => die(e && e.stack ? e.stack : String(e)));
