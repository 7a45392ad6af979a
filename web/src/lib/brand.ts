/** The product as the user sees it, in one place. */
export const PRODUCT_NAME = 'Ops Console';
/** The console's version (package.json), shown as the frontend version in the user menu. */
export const FRONTEND_VERSION = __APP_VERSION__;
export const DOCS_URL = 'https://flanksource.com/docs';
export const KUBECONFIG_DOCS_URL = 'https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/';
