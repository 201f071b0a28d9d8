// The console's one modal (src/components/Modal.tsx): a dialog with aria-modal named by its title, closed by
// Escape and by its backdrop, focus moved into it on open and back to the opener on close, and Tab kept
// inside it (from the last control to the first, Shift+Tab from the first to the last).
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import Modal from '../../src/components/Modal.tsx';

function Page() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)} data-testid="opener">
        Open
      </button>
      <button type="button" data-testid="behind">
        Behind
      </button>
      {open && (
        <Modal
          title="Title"
          titleId="t-title"
          onClose={() => setOpen(false)}
          testId="modal"
          footer={
            <button type="button" className="button" data-testid="last">
              OK
            </button>
          }
        >
          <p>Body</p>
        </Modal>
      )}
    </>
  );
}

async function openModal() {
  render(<Page />);
  const opener = screen.getByTestId('opener');
  opener.focus();
  await act(async () => opener.click());
  return screen.getByTestId('modal');
}

const key = (init: KeyboardEventInit) =>
  act(async () => void fireEvent.keyDown(document.activeElement ?? document.body, init));

describe('Modal', () => {
  afterEach(cleanup);

  it('is a dialog with aria-modal, named by its title, in Bulma’s markup', async () => {
    const modal = await openModal();
    expect(modal.getAttribute('role')).toBe('dialog');
    expect(modal.getAttribute('aria-modal')).toBe('true');
    expect(modal.getAttribute('aria-labelledby')).toBe('t-title');
    expect(modal.className).toBe('modal is-active');
    expect(modal.querySelector(':scope > .modal-background')).not.toBeNull();
  });

  it('takes the focus on open and gives it back to the opener when Escape closes it', async () => {
    const modal = await openModal();
    expect(modal.contains(document.activeElement)).toBe(true);
    await key({ key: 'Escape' });
    expect(screen.queryByTestId('modal')).toBeNull();
    expect(document.activeElement).toBe(screen.getByTestId('opener'));
  });

  it('closes on a click on the backdrop', async () => {
    const modal = await openModal();
    await act(async () => (modal.querySelector('.modal-background') as HTMLElement).click());
    expect(screen.queryByTestId('modal')).toBeNull();
  });

  it('keeps Tab inside: from the last control to the first, Shift+Tab from the first to the last', async () => {
    await openModal();
    screen.getByTestId('last').focus();
    await key({ key: 'Tab' });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
    await key({ key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(screen.getByTestId('last'));
    screen.getByTestId('behind').focus();
    await key({ key: 'Tab' });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
  });

  it('is a form when it submits: a submit button runs onSubmit, and the page does not reload', async () => {
    let submitted = 0;
    render(
      <Modal
        title="Title"
        onClose={() => {}}
        onSubmit={() => submitted++}
        testId="modal"
        footer={
          <button type="submit" className="button" data-testid="submit">
            Save
          </button>
        }
      >
        <input aria-label="Name" />
      </Modal>,
    );
    const modal = screen.getByTestId('modal');
    expect(modal.querySelector(':scope > form.modal-card')).not.toBeNull();
    expect(modal.getAttribute('aria-labelledby')).toBe(modal.querySelector('.modal-card-title')!.id);
    await act(async () => screen.getByTestId('submit').click());
    expect(submitted).toBe(1);
  });
});
