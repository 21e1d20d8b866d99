/** What every page needs besides its own data: labels, links, the report's header facts. */
import type { Common, LabelInfo, PageName } from '../src/report/contract.js';
import { PAGE_FILES } from '../src/report/contract.js';

export interface Ctx {
  common: Common;
  labels: LabelInfo[];
  pageHref(page: Exclude<PageName, 'site'>): string;
  siteHref(slug: string): string;
}

const SLUG = /^[a-z0-9.-]+$/;

export function makeCtx(common: Common): Ctx {
  return {
    common,
    labels: common.labels,
    pageHref: (page) => (common.singleFile ? `#${page}` : `${common.root}${PAGE_FILES[page]}`),
    siteHref: (slug) => {
      // Slugs are made on the Node side from [a-z0-9.-] and a hash; check anyway.
      if (!SLUG.test(slug)) throw new Error('bad site slug');
      return common.singleFile ? `#site/${slug}` : `${common.root}sites/${slug}.html`;
    },
  };
}
