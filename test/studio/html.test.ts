/** Markup built by the `html` template: values escaped, markup (text or bytes already encoded) kept. */
import { describe, expect, it } from 'vitest';
import { Html, html } from '../../src/studio/html.js';

describe('html', () => {
  it('escapes values and keeps markup, text or bytes, in order', () => {
    const encoded = new Html([Buffer.from('<b>gr\u00fc\u00df</b>')]);
    const page = html`<p>${'<i>'}${encoded}${[html`<br />`, 'a & b', encoded]}</p>`;
    const expected = '<p>&lt;i&gt;<b>gr\u00fc\u00df</b><br />a &amp; b<b>gr\u00fc\u00df</b></p>';
    expect(page.text).toBe(expected);
    expect(page.bytes()).toEqual(Buffer.from(expected));
    expect(html`<div>${page}</div>`.text).toBe(`<div>${expected}</div>`);
  });

  it('writes nothing for null, undefined and false, and numbers as text', () => {
    expect(html`<td>${null}${undefined}${false}${0}</td>`.text).toBe('<td>0</td>');
  });
});
