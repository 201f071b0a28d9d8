// The group a report page is about (spec part two §2: the group id is the second path segment),
// decided on the server before anything renders: null for a malformed, unknown or another
// customer's group, and the page then answers 404 (never another account's data).

export interface ReportGroup {
  group_uuid: string;
  group_name: string;
}

export async function reportGroupOf(locals: App.Locals, hash: string | undefined): Promise<ReportGroup | null> {
  const customerId = locals.session?.customer?.customer_id;
  if (!locals.bridge || customerId === undefined || !hash) return null;
  return locals.bridge.reportGroup(customerId, hash);
}
