// The admin CLI's process (dist/admin.mjs, `npm run admin -- …`): runs the command line given to it
// (admin.ts) and exits with its code.
import { main } from './admin.ts';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error('admin: failed:', err);
    process.exit(1);
  },
);
