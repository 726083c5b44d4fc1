import { sql, type Kysely } from 'kysely';

/**
 * Event ordering keys are declared by the feature that emits the event (events.resource_key), no
 * longer derived by the webhook relay from each type's fields. Events recorded before this
 * migration get the key the relay used to derive, so their deliveries keep their order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE events ADD COLUMN resource_key text`.execute(db);
  await backfillResourceKeys(db);
}

/** The key the relay derived before 0012 (webhooks.ordering.ts), for events that have none. */
export async function backfillResourceKeys(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE events SET resource_key = left(CASE
      WHEN type = 'theme.published' THEN 'theme'
      WHEN type LIKE 'order.%' AND data->>'orderId' IS NOT NULL THEN 'order:' || (data->>'orderId')
      WHEN type LIKE 'product.%' AND data->>'productId' IS NOT NULL THEN 'product:' || (data->>'productId')
      WHEN type = 'inventory.updated' AND coalesce(data->>'variantId', data->>'productId') IS NOT NULL
        THEN 'variant:' || coalesce(data->>'variantId', data->>'productId')
      WHEN type = 'app.installed' AND data->>'appId' IS NOT NULL THEN 'app:' || (data->>'appId')
      WHEN type = 'content.updated' AND coalesce(data->>'collectionId', data->>'pageId', data->>'menuId',
          data->>'regionId', data->>'key', data->>'handle', data->>'slug', data->>'id') IS NOT NULL
        THEN CASE WHEN jsonb_typeof(data->'kind') = 'string' THEN 'content:' || (data->>'kind') ELSE 'content' END
          || ':' || coalesce(data->>'collectionId', data->>'pageId', data->>'menuId', data->>'regionId',
          data->>'key', data->>'handle', data->>'slug', data->>'id')
      ELSE 'event:' || id::text
    END, 300)
    WHERE resource_key IS NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE events DROP COLUMN IF EXISTS resource_key`.execute(db);
}
