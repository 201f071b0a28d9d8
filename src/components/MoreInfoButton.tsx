/** A transaction row's More Info button, which opens the Transaction Info modal (docs/console.md §2). */
export default function MoreInfoButton({ onClick }: { onClick(): void }) {
  return (
    <button type="button" className="button is-small is-info is-light" onClick={onClick} data-testid="more-info">
      More Info
    </button>
  );
}
