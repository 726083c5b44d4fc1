import type { StaffRole } from './principals.ts';

/** Who may call an Admin API operation: anyone (`public`), or staff of at least this role. */
export type AdminAccess = 'public' | StaffRole;

/**
 * The Admin API's access table (issue #26): every admin operation, by operationId, and the lowest
 * role that may call it (`owner` > `admin` > `staff`). The admin scope refuses to register a route
 * missing here and the staff authentication hook enforces the entry, so no route can forget its
 * role. docs/authentication.md shows this table; `src/http/admin-access.test.ts` keeps the two
 * equal and calls every operation with every role.
 *
 * - `staff`: the day-to-day work: the catalog, content, orders (not refunds), customers (read), the store's settings
 *   (read only) and the overview.
 * - `admin`: running the store: settings, pricing (discounts, tax rates), shipping, refunds, the tax report, storefront
 *   keys, webhooks, the email sender, themes and apps; customers' exports and erasures.
 * - `owner`: who works here and with which role.
 */
export const ADMIN_ACCESS = {
  // Authentication
  adminRequestSignInCode: 'public',
  adminVerifySignInCode: 'public',
  adminGetSession: 'staff',
  adminSignOut: 'staff',
  // Staff and roles
  adminListStaff: 'owner',
  adminAddStaffMember: 'owner',
  adminGetStaffMember: 'owner',
  adminUpdateStaffMember: 'owner',
  adminRemoveStaffMember: 'owner',
  // Store settings and overview
  adminGetSettings: 'staff',
  adminUpdateSettings: 'admin',
  adminGetOverview: 'staff',
  // Catalog
  adminCreateProduct: 'staff',
  adminListProducts: 'staff',
  adminGetProduct: 'staff',
  adminUpdateProduct: 'staff',
  adminDeleteProduct: 'staff',
  adminLookupVariants: 'staff',
  adminCreateVariant: 'staff',
  adminUpdateVariant: 'staff',
  adminDeleteVariant: 'staff',
  adminCreateCollection: 'staff',
  adminListCollections: 'staff',
  adminPreviewCollection: 'staff',
  adminListCollectionProducts: 'staff',
  adminGetCollection: 'staff',
  adminUpdateCollection: 'staff',
  adminDeleteCollection: 'staff',
  // Media
  adminUploadMedia: 'staff',
  adminGetMedia: 'staff',
  // Content
  adminListMenus: 'staff',
  adminGetMenu: 'staff',
  adminPutMenu: 'staff',
  adminDeleteMenu: 'staff',
  adminListPages: 'staff',
  adminGetPage: 'staff',
  adminPutPage: 'staff',
  adminDeletePage: 'staff',
  adminListRegions: 'staff',
  adminGetRegion: 'staff',
  adminGetRegionDraft: 'staff',
  adminSaveRegionDraft: 'staff',
  adminPublishRegion: 'staff',
  adminDeleteRegion: 'staff',
  // Orders
  adminListOrders: 'staff',
  adminGetOrder: 'staff',
  adminCreateRefund: 'admin',
  adminCreateFulfillment: 'staff',
  adminUpdateFulfillment: 'staff',
  adminCancelFulfillment: 'staff',
  adminCancelOrder: 'admin',
  adminCreateReturn: 'admin',
  adminPreviewReturn: 'staff',
  // Reports (decision `tax-report`): financial figures are admin's.
  adminGetTaxReport: 'admin',
  // Customers (decision `erasure-is-immediate`): staff see them (they ship to their addresses); exports and erasure are admin's.
  adminListCustomers: 'staff',
  adminGetCustomer: 'staff',
  adminExportCustomer: 'admin',
  adminEraseCustomer: 'admin',
  adminListPrivacyLog: 'admin',
  // Customer groups (decision `customer-groups`): staff see them; setting them prices customers, which is admin's.
  adminCreateCustomerGroup: 'admin',
  adminListCustomerGroups: 'staff',
  adminGetCustomerGroup: 'staff',
  adminUpdateCustomerGroup: 'admin',
  adminDeleteCustomerGroup: 'admin',
  adminSetCustomerGroups: 'admin',
  // Gift cards (decision `gift-card-ledger`)
  adminIssueGiftCard: 'admin',
  adminListGiftCards: 'staff',
  adminGetGiftCard: 'staff',
  adminUpdateGiftCard: 'admin',
  // Pricing
  adminCreateDiscount: 'admin',
  adminListDiscounts: 'admin',
  adminDeleteDiscount: 'admin',
  adminCreatePromotion: 'admin',
  adminListPromotions: 'staff',
  adminGetPromotion: 'staff',
  adminUpdatePromotion: 'admin',
  adminDeletePromotion: 'admin',
  adminSetTaxRate: 'admin',
  adminListTaxRates: 'admin',
  adminDeleteTaxRate: 'admin',
  adminPutTaxService: 'admin',
  adminGetTaxService: 'admin',
  adminDeleteTaxService: 'admin',
  adminRotateTaxServiceSecret: 'admin',
  adminCreateTaxClass: 'admin',
  adminListTaxClasses: 'staff',
  adminDeleteTaxClass: 'admin',
  // Markets
  adminCreateMarket: 'admin',
  adminListMarkets: 'staff',
  adminGetMarket: 'staff',
  adminUpdateMarket: 'admin',
  adminDeleteMarket: 'admin',
  adminExplainVariantPrice: 'staff',
  // Price lists (decision `price-lists`): staff see them; what customers pay is admin's.
  adminCreatePriceList: 'admin',
  adminListPriceLists: 'staff',
  adminGetPriceList: 'staff',
  adminUpdatePriceList: 'admin',
  adminDeletePriceList: 'admin',
  // Shipping
  adminCreateShippingZone: 'admin',
  adminListShippingZones: 'admin',
  adminGetShippingZone: 'admin',
  adminUpdateShippingZone: 'admin',
  adminDeleteShippingZone: 'admin',
  adminCreateShippingMethod: 'admin',
  adminUpdateShippingMethod: 'admin',
  adminDeleteShippingMethod: 'admin',
  // Storefront keys
  adminCreateStorefrontKey: 'admin',
  adminListStorefrontKeys: 'admin',
  adminGetStorefrontKey: 'admin',
  adminUpdateStorefrontKey: 'admin',
  adminRevokeStorefrontKey: 'admin',
  // Webhooks
  adminCreateWebhookEndpoint: 'admin',
  adminListWebhookEndpoints: 'admin',
  adminGetWebhookEndpoint: 'admin',
  adminUpdateWebhookEndpoint: 'admin',
  adminDeleteWebhookEndpoint: 'admin',
  adminRotateWebhookSecret: 'admin',
  adminSendTestWebhook: 'admin',
  adminReplayWebhooks: 'admin',
  adminListWebhookDeliveries: 'admin',
  adminGetWebhookDelivery: 'admin',
  adminRetryWebhookDelivery: 'admin',
  // Email sender
  adminGetSenderState: 'admin',
  adminRegisterSendingDomain: 'admin',
  adminGetSendingDomain: 'admin',
  adminVerifySendingDomain: 'admin',
  adminDeleteSendingDomain: 'admin',
  // Themes and apps
  adminCreateTheme: 'admin',
  adminListThemes: 'admin',
  adminGetTheme: 'admin',
  adminPublishTheme: 'admin',
  adminInstallApp: 'admin',
  adminListApps: 'admin',
  // Imports and exports (decision `csv-imports`): the whole catalog and customers' personal data at once.
  adminCreateImport: 'admin',
  adminListImports: 'admin',
  adminGetImport: 'admin',
  adminExport: 'admin',
  // Draft orders (decision `draft-orders`): completing one records money taken outside, as a refund moves money.
  adminCreateDraftOrder: 'staff',
  adminListDraftOrders: 'staff',
  adminGetDraftOrder: 'staff',
  adminUpdateDraftOrder: 'staff',
  adminDeleteDraftOrder: 'staff',
  adminInvoiceDraftOrder: 'staff',
  adminCompleteDraftOrder: 'admin',
} as const satisfies Record<string, AdminAccess>;

/**
 * The access of an admin route, from its operationId; throws while the app is built when the
 * route has none or is missing from ADMIN_ACCESS.
 */
export function adminAccessOf(route: {
  method: string | string[];
  url: string;
  schema?: object;
}): AdminAccess {
  const operationId = (route.schema as { operationId?: unknown } | undefined)?.operationId;
  const access =
    typeof operationId === 'string' && Object.hasOwn(ADMIN_ACCESS, operationId)
      ? ADMIN_ACCESS[operationId as keyof typeof ADMIN_ACCESS]
      : undefined;
  if (access === undefined) {
    throw new Error(
      `Admin route ${String(route.method)} ${route.url} (operationId ${String(operationId)}) has no role: add it to ADMIN_ACCESS in src/http/admin-access.ts and to the table in docs/authentication.md.`,
    );
  }
  return access;
}

const RANK: Record<StaffRole, number> = { staff: 1, admin: 2, owner: 3 };

/** Whether a member of role `role` may call an operation of access `access`. */
export function roleMayCall(role: StaffRole, access: AdminAccess): boolean {
  return access === 'public' || RANK[role] >= RANK[access];
}
