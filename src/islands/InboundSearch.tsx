import SearchInput from '../components/SearchInput.tsx';
import { inboundSearchText, typeInboundSearch } from '../stores/inbound.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

/** The Inbound list's search box (docs/console.md §2 "Inbound"), debounced 1000 ms (§9). */
export default function InboundSearch() {
  const $text = useIslandStore(inboundSearchText);
  return (
    <SearchInput
      value={$text}
      onType={typeInboundSearch}
      placeholder="Search by From, To or Subject"
      testId="inbound-search"
    />
  );
}
