/**
 * File names for site pages. A site name is a measured string (hostile): the slug keeps only
 * [a-z0-9.-] of it for readability and always appends a hash of the full name, so two sites
 * never share a page and nothing in a path or an href comes unfiltered from data.
 */
import { createHash } from 'node:crypto';

export function siteSlug(site: string): string {
  const readable = site
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 60);
  const hash = createHash('sha1').update(site, 'utf8').digest('hex').slice(0, 8);
  return readable ? `${readable}-${hash}` : hash;
}
