// Optional read-only sidebar panel for the DSH web app (`exports["./client"]`, `dsh.client`).
// The host serves this file as /plugins/cuecard-dsh-memory/client.js and runs it in the browser
// through its module loader (the factory form below, as the host's own client bundles are
// written). It adds an action beside Settings at the sidebar foot, through the documented
// `sidebar.footer.action` slot; the action opens a small panel that polls the plugin's
// loopback status route. It shows no memory content, writes nothing, and renders text only.
//
// A classic script, not a module: no `export`. Tests run it in a Node vm context the same way.

function failureLine(status) {
  const refused = Array.isArray(status && status.settings_refused) ? status.settings_refused : []
  const lines = refused.slice(0, 8).map((problem) => `setting refused: ${String(problem).slice(0, 300)}`)
  const failure = status && status.last_failure
  if (!failure || typeof failure !== 'object') return lines
  return [...lines, `last failure (${String(failure.at ?? '?')}): ${String(failure.message ?? '').slice(0, 500)}`]
}

function statusLines(status) {
  if (!status || typeof status !== 'object') return ['status route unavailable — run memory_status from chat']
  if (!status.ok) {
    return ['cuecard: not configured', String(status.error ?? 'unknown error').slice(0, 500), ...failureLine(status)]
  }
  const v = status.vault ?? {}
  const index = v.index && typeof v.index === 'object'
    ? `${v.index.facts ?? '?'} facts in ${v.index.notes ?? '?'} notes` : String(v.index ?? 'none')
  return [
    `vault: ${v.vault ?? '(unknown)'}`,
    `layout: ${v.layout ?? '(unknown)'}`,
    `index: ${index}`,
    `pending inbox files: ${v.pending ?? '?'}`,
    `conflicts waiting: ${v.conflicts ?? '?'}`,
    `last promotion: ${v.last_promotion ?? 'none'}`,
    'write path: the inbox, via memory_submit',
    ...failureLine(status),
  ]
}

const STATUS_PATH = '/api/cuecard-dsh-memory/status'
const POLL_MS = 10000

function factory(require) {
  const module = { exports: {} }
  const React = require('react')
  const h = React.createElement

  function StatusPanel({ wide }) {
    const [open, setOpen] = React.useState(false)
    const [lines, setLines] = React.useState(statusLines(undefined))
    React.useEffect(() => {
      if (!open) return undefined
      let live = true
      const refresh = () => fetch(STATUS_PATH, { cache: 'no-store' })
        .then((res) => (res.ok ? res.json() : undefined), () => undefined)
        .then((status) => { if (live) setLines(statusLines(status)) })
      refresh()
      const timer = setInterval(refresh, POLL_MS)
      return () => { live = false; clearInterval(timer) }
    }, [open])
    const button = h('button', {
      type: 'button', title: 'cuecard memory', 'aria-expanded': open, 'data-cuecard': 'status-button',
      onClick: () => setOpen(!open),
      style: { font: 'inherit', background: 'none', border: 0, cursor: 'pointer', color: 'inherit' },
    }, wide ? 'cuecard memory' : 'cc')
    const panel = open && h('div', {
      role: 'dialog', 'aria-label': 'cuecard memory status', 'data-cuecard': 'status-panel',
      style: {
        position: 'fixed', left: 8, bottom: 60, width: 320, maxHeight: 'calc(100dvh - 72px)',
        overflowY: 'auto', padding: 8, font: '12px monospace', background: '#111', color: '#eee',
        borderRadius: 6, zIndex: 50,
      },
    }, lines.map((line, i) => h('div', { key: i }, line)))
    return h(React.Fragment, null, button, panel)
  }

  module.exports.inject = ['slots']
  module.exports.apply = (ctx) => {
    ctx.slots.inject('sidebar.footer.action', () => ctx.slots.register(
      { name: 'sidebar.footer.action', id: 'cuecard-dsh-memory', order: 120, label: 'cuecard memory' },
      StatusPanel,
    ))
  }
  module.exports.statusLines = statusLines
  return module.exports
}

window.__ModuleLoader__.load({ id: 'cuecard-dsh-memory', factory })
