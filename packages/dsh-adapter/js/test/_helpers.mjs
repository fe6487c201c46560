// Shared set-up for the plugin tests: a real cordis Context with the real ToolRuntime, a temp
// cuecard home (config, cache, vault) driven through the real `cuecard` CLI, and fake cores.

import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from '@deepseek-ai/cordis'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime from '@deepseek-ai/dsh-tools'

const here = dirname(fileURLToPath(import.meta.url))
export const JS_ROOT = resolve(here, '..')
/** The Python that has cuecard installed (scripts/setup's venv unless the runner says otherwise). */
export const PYTHON = process.env.CUECARD_TEST_PYTHON || resolve(JS_ROOT, '../../../.venv/bin/python')

export const signal = () => new AbortController().signal

export async function boot(plugin, config = {}, { before } = {}) {
  const root = new Context()
  const logs = []
  root.logger.exporter({ levels: { default: 3 }, export: (m) => logs.push(m) })
  await root.plugin(SystemPrompt, {})
  await root.plugin(ToolRuntime, {})
  if (before) await before(root)
  const fiber = await root.plugin(plugin, config)
  return { root, fiber, logs }
}

/** Logged lines (printf-style arguments filled in), optionally of one type. */
export function logText(logs, type) {
  return logs.filter((m) => !type || m.type === type).map((m) => {
    const [format, ...rest] = m.args.map(String)
    return format.replace(/%[sdifoOcC]/g, () => rest.shift() ?? '') + (rest.length ? ` ${rest.join(' ')}` : '')
  }).join('\n')
}

/** A temp folder tree for one test file; removed by `dispose()`. */
export function tempHome() {
  const dir = mkdtempSync(join(tmpdir(), 'cuecard-dsh-'))
  return {
    dir,
    config: join(dir, 'config'),
    cache: join(dir, 'cache'),
    vault: join(dir, 'vault'),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** Point this process (and the children the plugins spawn) at `home`. */
export function useHome(home) {
  process.env.XDG_CONFIG_HOME = home.config
  process.env.XDG_CACHE_HOME = home.cache
  process.env.CUECARD_VAULT = home.vault
}

/** Run the real `python -m cuecard.dsh_adapter …` or `cuecard …` CLI; returns stdout. */
export function cuecard(args, { input, module = 'cuecard.core', cwd } = {}) {
  const argv = module === 'cuecard.dsh_adapter'
    ? ['-m', 'cuecard.dsh_adapter', ...args]
    : ['-c', 'import sys; from cuecard.core.cli import main; sys.exit(main())', ...args]
  return execFileSync(PYTHON, argv, { input, cwd, encoding: 'utf8', env: process.env, stdio: ['pipe', 'pipe', 'pipe'] })
}

/** A vault with promoted facts, and the interpreter recorded by the real `cuecard dsh install`. */
export function realVault(home, facts) {
  useHome(home)
  cuecard(['install', '--no-add', '--out', join(home.dir, 'tarballs')], { module: 'cuecard.dsh_adapter' })
  cuecard(['vault', 'init'])
  if (facts?.length) {
    cuecard(['vault', 'submit', '--agent', 'seed'], { input: facts.join('\n') + '\n' })
    cuecard(['vault', 'apply', '--auto'])
  }
}

/**
 * A fake core: a Node script recorded as the `default` interpreter of `home`, speaking the
 * worker protocol. It appends `START <args>` to `<home>/fake.log` when it starts and each
 * request line as it reads it; it answers `hello` itself, and every other request from
 * `<home>/fake.out`: for `call`, `{"response": <fake.out as JSON>}` (a line that is not JSON
 * when fake.out is not JSON); for `recall` and `hook`, `{"output": <fake.out>}`. A non-zero
 * `<home>/fake.code` makes it print fake.out on stderr and exit with that status instead;
 * `<home>/fake.sleep` delays each answer (seconds).
 */
export function fakeCore(home, { output = '', code = 0, sleep = 0 } = {}) {
  const script = join(home.dir, 'fake-python')
  replaceFile(script, `#!${process.execPath}
const fs = require('fs'), d = ${JSON.stringify(home.dir)}
const read = (name) => fs.readFileSync(d + '/' + name, 'utf8')
fs.appendFileSync(d + '/fake.log', 'START ' + process.argv.slice(2).join(' ') + '\\n')
let queue = Promise.resolve()
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  queue = queue.then(async () => {
    fs.appendFileSync(d + '/fake.log', line + '\\n')
    const request = JSON.parse(line)
    if (request.op === 'hello') return process.stdout.write(JSON.stringify({ id: request.id, ok: true, version: 'fake' }) + '\\n')
    const sleep = Number(read('fake.sleep') || 0)
    if (sleep) await new Promise((r) => setTimeout(r, sleep * 1000))
    const out = read('fake.out'), code = Number(read('fake.code'))
    if (code) { process.stderr.write(out); process.exit(code) }
    if (request.op === 'recall') return process.stdout.write(JSON.stringify({ id: request.id, output: out, topics: [], searched: true }) + '\\n')
    if (request.op === 'hook') return process.stdout.write(JSON.stringify({ id: request.id, output: out }) + '\\n')
    let value
    try { value = JSON.parse(out) } catch { return process.stdout.write(out + '\\n') }
    process.stdout.write(JSON.stringify({ id: request.id, code: value.ok ? 0 : 1, response: value }) + '\\n')
  })
})
`, 0o755)
  replaceFile(join(home.dir, 'fake.out'), output)
  replaceFile(join(home.dir, 'fake.code'), String(code))
  replaceFile(join(home.dir, 'fake.sleep'), sleep ? String(sleep) : '')
  replaceFile(join(home.dir, 'fake.log'), '')
  const record = join(home.config, 'cuecard')
  mkdirSync(record, { recursive: true })
  replaceFile(join(record, 'dsh.json'), JSON.stringify({ python: script }))
  useHome(home)
  return { script, log: join(home.dir, 'fake.log') }
}

/**
 * Write `path` whole: a new file renamed over the old one. A worker spawned a moment ago may
 * still be loading the fake core's script (the plugin's startup `hello` spawns one at boot): a
 * file rewritten in place can be read truncated, an empty script that exits at once.
 */
export function replaceFile(path, data, mode = 0o644) {
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, data)
  chmodSync(temp, mode)
  renameSync(temp, path)
}

/** The requests a fake core read (hello excluded), and how many times it started. */
export function fakeRequests(log) {
  const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean)
  return {
    starts: lines.filter((l) => l.startsWith('START ')),
    requests: lines.filter((l) => !l.startsWith('START ')).map((l) => JSON.parse(l)).filter((r) => r.op !== 'hello'),
  }
}

export { existsSync }
