import { type ComponentChildren, Fragment } from 'preact';

// JSON pretty-printed with colours, built as elements (no HTML strings: the payload is data).

function node(v: unknown, indent: string): ComponentChildren {
  if (v === null) return <span class="j-null">null</span>;
  if (typeof v === 'string') return <span class="j-str">{JSON.stringify(v)}</span>;
  if (typeof v === 'number') return <span class="j-num">{String(v)}</span>;
  if (typeof v === 'boolean') return <span class="j-bool">{String(v)}</span>;
  const inner = `${indent}  `;
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return (
      <>
        {'[\n'}
        {v.map((x, i) => (
          <Fragment key={i}>
            {inner}
            {node(x, inner)}
            {i < v.length - 1 ? ',\n' : '\n'}
          </Fragment>
        ))}
        {indent}]
      </>
    );
  }
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return (
    <>
      {'{\n'}
      {entries.map(([k, x], i) => (
        <Fragment key={k}>
          {inner}
          <span class="j-key">{JSON.stringify(k)}</span>: {node(x, inner)}
          {i < entries.length - 1 ? ',\n' : '\n'}
        </Fragment>
      ))}
      {indent}
      {'}'}
    </>
  );
}

export function JsonView({ text }: { text: string | null }) {
  if (text === null || text === '') return <pre class="code muted">(no body)</pre>;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return <pre class="code">{text}</pre>;
  }
  return <pre class="code">{node(value, '')}</pre>;
}

export function HeaderTable({ headers }: { headers: Record<string, string> }) {
  const rows = Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : 1));
  if (rows.length === 0) return <p class="muted">(none)</p>;
  return (
    <table class="kv">
      <tbody>
        {rows.map(([k, v]) => (
          <tr key={k}>
            <th>{k}</th>
            <td>{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
