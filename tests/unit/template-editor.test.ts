// The template editor's rules without a browser (docs/console-reports.md §4 "Reply-to", "Template status"):
// reply-to follows the from address unless the box is ticked; re-create makes a '{name} (Copy)' draft.
import { describe, expect, it } from 'vitest';
import {
  BLANK,
  type TemplateWire,
  fieldsFor,
  initialDifferentReplyTo,
  previewDocument,
  withDifferentReplyTo,
  withFromEmail,
} from '../../src/lib/template-editor.ts';

const wire = (over: Partial<TemplateWire>): TemplateWire => ({
  id: 'id',
  name: 'Receipt',
  status: 'published',
  type: 'user',
  alias: null,
  from_name: null,
  from_email: 'a@shop.example',
  reply_email: 'a@shop.example',
  subject: null,
  description: null,
  content_html: '<p/>',
  content_text: null,
  created_timestamp: '',
  updated_timestamp: '',
  published_timestamp: null,
  unpublished_changes: false,
  ...over,
});

describe('reply-to rules', () => {
  it('editing the from address carries reply-to along unless the box is ticked', () => {
    expect(withFromEmail({ ...BLANK }, 'a@x.example', false).reply_email).toBe('a@x.example');
    expect(withFromEmail({ ...BLANK, reply_email: 'r@x.example' }, 'a@x.example', true).reply_email).toBe(
      'r@x.example',
    );
  });
  it('unticking copies the from address into reply-to', () => {
    expect(
      withDifferentReplyTo({ ...BLANK, from_email: 'a@x.example', reply_email: 'r@x.example' }, false).reply_email,
    ).toBe('a@x.example');
    expect(
      withDifferentReplyTo({ ...BLANK, from_email: 'a@x.example', reply_email: 'r@x.example' }, true).reply_email,
    ).toBe('r@x.example');
  });
  it('the box starts ticked only when the two addresses differ', () => {
    expect(initialDifferentReplyTo({ from_email: 'a@x.example', reply_email: 'a@x.example' })).toBe(false);
    expect(initialDifferentReplyTo({ from_email: 'a@x.example', reply_email: 'r@x.example' })).toBe(true);
  });
});

describe('create and re-create', () => {
  it(
    "re-creating your own template is a draft named '{name} " +
      "(Copy)'; a gallery template keeps its name; edit keeps all",
    () => {
      expect(fieldsFor('create', wire({}))).toMatchObject({ name: 'Receipt (Copy)', status: 'draft' });
      expect(fieldsFor('create', wire({ type: 'system' }))).toMatchObject({ name: 'Receipt', status: 'draft' });
      expect(fieldsFor('edit', wire({}))).toMatchObject({ name: 'Receipt', status: 'published' });
      expect(fieldsFor('create', null).name).toBe('Untitled Template');
    },
  );
  it('the preview document starts with a CSP that forbids scripts', () => {
    expect(previewDocument('<p>x</p>')).toMatch(
      /^<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src 'none';/,
    );
  });
});
