/**
 * /admin is the review queue too (the admin area's landing page and older links); its filter links
 * lead to /admin/apps.
 */
export { default, metadata } from "./apps/page";
