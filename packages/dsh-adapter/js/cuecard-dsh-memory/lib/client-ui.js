// Optional read-only sidebar panel for the DSH web app: a footer button that opens a small panel
// showing the status route's answer. It shows no memory content and writes nothing. Everything
// is rendered with textContent, never as HTML.

export const name = 'cuecard-dsh-memory-client'
export const inject = []
export const STATUS_PATH = '/api/cuecard-dsh-memory/status'
export const POLL_MS = 10000

/** The lines the panel shows for a status route answer (or a failure). */
export function statusLines(status) {
  if (!status || typeof status !== 'object') return ['status route unavailable — run memory_status from chat']
  if (!status.ok) return ['cuecard: not configured', String(status.error ?? 'unknown error').slice(0, 500)]
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
  ]
}

async function fetchStatus(fetchImpl) {
  try {
    const res = await fetchImpl(STATUS_PATH, { cache: 'no-store' })
    return res.ok ? await res.json() : undefined
  } catch {
    return undefined
  }
}

/** Mount the button and panel when the host offers sidebar seats; returns a disposer. */
export function apply(_ctx, { window: win = globalThis.window, fetch: fetchImpl = globalThis.fetch } = {}) {
  const seat = win?.__DSH_SIDEBAR_SEATS__?.footer?.action
  if (!seat?.mount || !win.document) return () => {}
  const doc = win.document
  let timer
  const panel = doc.createElement('div')
  panel.setAttribute('role', 'dialog')
  panel.setAttribute('aria-label', 'cuecard memory status')
  panel.style.cssText = 'position:fixed;left:8px;bottom:60px;width:320px;max-height:calc(100dvh - 72px);' +
    'overflow-y:auto;padding:8px;font:12px monospace;background:#111;color:#eee;border-radius:6px;display:none;z-index:50'
  const refresh = async () => {
    const lines = statusLines(await fetchStatus(fetchImpl))
    panel.replaceChildren(...lines.map((line) => {
      const row = doc.createElement('div')
      row.textContent = line
      return row
    }))
  }
  const toggle = () => {
    const open = panel.style.display === 'none'
    panel.style.display = open ? 'block' : 'none'
    clearInterval(timer)
    if (open) {
      refresh()
      timer = setInterval(refresh, POLL_MS)
    }
  }
  doc.body.append(panel)
  const unmount = seat.mount({
    id: 'cuecard-dsh-memory',
    render: (host) => {
      const button = doc.createElement('button')
      button.type = 'button'
      button.title = 'cuecard memory'
      button.textContent = 'cc'
      button.addEventListener('click', toggle)
      host.append(button)
    },
  })
  return () => {
    clearInterval(timer)
    panel.remove()
    if (typeof unmount === 'function') unmount()
  }
}
