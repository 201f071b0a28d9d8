// A template without a text part gets one made with html-to-text: the text is made
// from the HTML once per version with the variables still in place (textTemplateOf), and must read
// exactly as html-to-text of the rendered HTML does, which stays the way for what it cannot follow.
import { describe, expect, it } from 'vitest';
import { GALLERY } from '../../src/server/templates/gallery/templates.ts';
import { compile, htmlToText, render, textTemplateOf } from '../../src/server/templates/render.ts';

const OPTS = { knownHelpersOnly: true } as const;

/** The text part sent, and the text of the rendered HTML made at send time. */
function both(html: string, variables: Record<string, unknown>) {
  const template = compile({ subject: null, html, text: null });
  const rendered = render(template, variables);
  return { derived: template.derivedText !== null, sent: rendered.text, perSend: htmlToText(rendered.html) };
}

describe('the text part of a template without one', () => {
  it.each(GALLERY.map((g) => [g.name, g] as const))('reads as the rendered HTML converted: %s', (_, g) => {
    const { derived, sent, perSend } = both(g.html, g.sample);
    expect(derived).toBe(true);
    expect(sent).toBe(perSend);
    expect(sent).not.toMatch(/\{\{|\u0002/);
  });

  const CASES: [string, string, Record<string, unknown>][] = [
    [
      'a list by #each',
      '<p>Hello {{first_name}},</p><ul>{{#each items}}<li>{{name}} × {{quantity}}</li>{{/each}}</ul><p>Total ' +
        '{{total}}</p>',
      {
        first_name: 'Ann',
        items: [
          { name: 'Tea', quantity: 2 },
          { name: 'Cup', quantity: 1 },
        ],
        total: '£9',
      },
    ],
    ['an empty list', '<ul>{{#each items}}<li>{{name}}</li>{{/each}}</ul><p>End</p>', { items: [] }],
    [
      '#if around paragraphs, true',
      '<p>A</p>{{#if vip}}<p>Thanks, {{name}}</p>{{else}}<p>Join us</p>{{/if}}<p>B</p>',
      { vip: true, name: 'Ann' },
    ],
    [
      '#if around paragraphs, false',
      '<p>A</p>{{#if vip}}<p>Thanks, {{name}}</p>{{else}}<p>Join us</p>{{/if}}<p>B</p>',
      { vip: false },
    ],
    [
      'a link to a variable, and one whose text is its address',
      '<p><a href="{{url}}">Open</a> or <a href="{{url}}">{{url}}</a></p>',
      { url: 'https://shop.example/o/1' },
    ],
    [
      'values with markup and entities',
      '<p>{{note}} &amp; {{other}}</p>',
      { note: '<b>bold</b> & "quoted"', other: 'a &amp; b' },
    ],
    ['a heading keeps its case', '<h1>Welcome, {{name}}</h1><p>Text</p>', { name: 'Ann' }],
    ['a long paragraph', `<p>${'word '.repeat(40)}{{name}} ${'more '.repeat(30)}</p>`, { name: 'Ann' }],
    [
      'a table row per item',
      '<table>{{#each rows}}<tr><td>{{a}}</td><td>{{b}}</td></tr>{{/each}}</table>',
      {
        rows: [
          { a: 1, b: 2 },
          { a: 3, b: 4 },
        ],
      },
    ],
  ];
  it.each(CASES)('reads as the rendered HTML converted: %s', (_, html, variables) => {
    const { derived, sent, perSend } = both(html, variables);
    expect(derived).toBe(true);
    expect(sent).toBe(perSend);
  });

  it.each([
    ['a block inside an attribute', '<p class="{{#if a}}x{{/if}}">Hi {{name}}</p>'],
    ['triple-stash raw HTML', '<div>{{{body}}}</div>'],
    ['a comment that may hold braces', '<p>{{!-- a }} b --}}{{name}}</p>'],
    ['white space control', '<p>{{~name~}}</p>'],
    ['braces written as entities', '<p>&#123;&#123;literal&#125;&#125; {{name}}</p>'],
    ['an escaped mustache', '<p>\\{{literal}} {{name}}</p>'],
    ['no variables at all', '<p>Plain</p>'],
  ])('falls back to converting at send time for %s', (_, html) => {
    expect(textTemplateOf(html, OPTS)).toBeNull();
    const template = compile({ subject: null, html, text: null });
    const rendered = render(template, { a: true, name: 'Ann', body: '<p>raw</p>' });
    expect(rendered.text).toBe(htmlToText(rendered.html));
  });

  it('writes a table row as one line, its cells side by side, and keeps a heading as written', () => {
    const html =
      '<h1>Thanks, {{name}}</h1><table>{{#each items}}<tr><td>{{title}} × ' +
      '{{n}}</td><td>{{price}}</td></tr>{{/each}}</table><p><a href="{{url}}">Track it</a></p>';
    const { derived, sent } = both(html, {
      name: 'Ann',
      items: [
        { title: 'Tea', n: 2, price: '£4' },
        { title: 'Cup', n: 1, price: '£6' },
      ],
      url: 'https://shop.example/t/1',
    });
    expect(derived).toBe(true);
    expect(sent).toBe('Thanks, Ann\n\nTea × 2 £4\nCup × 1 £6\n\nTrack it [https://shop.example/t/1]');
  });

  it('is not made when the template has a text part', () => {
    const template = compile({ subject: null, html: '<p>{{name}}</p>', text: 'Hi {{name}}' });
    expect(template.derivedText).toBeNull();
    expect(render(template, { name: 'Ann' }).text).toBe('Hi Ann');
  });
});
