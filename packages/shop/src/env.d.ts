/** What Vite puts in `import.meta.env` for this app (set at build time; see vite.config.ts). */
interface ImportMetaEnv {
  readonly BASE_URL: string;
  readonly VITE_STOREFRONT_KEY?: string;
  readonly VITE_STOREFRONT_API?: string;
}
interface ImportMeta {
  readonly env: ImportMetaEnv;
}
