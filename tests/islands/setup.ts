// Testing Library's waits (findBy…, waitFor) end as soon as what they wait for is there; their
// timeout only decides when a failure is reported. Its default of one second was shorter than a
// lazily loaded module's first load while CI's lanes share two cores, so it is set to what the
// islands' own test timeout (vitest.config.ts) leaves room for.
import { configure } from '@testing-library/react';

configure({ asyncUtilTimeout: 10_000 });
