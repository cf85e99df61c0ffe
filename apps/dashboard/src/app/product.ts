/** What the relay calls itself on the dashboard's pages (the sign-in page, the header). */
export const PRODUCT_NAME = 'Webhook relay';
