// <delivery-widget>: the embeddable checkout widget, served by the API at GET /widget.js (docs/widget.md).
// Vanilla custom element with a Shadow DOM; no framework, no dependencies. Built by src/pages/widget-asset.ts
// (esbuild, one minified IIFE) from this entry and the modules under web/widget/. Every text reaches the DOM as a text
// node: nothing is parsed as HTML.
import { DeliveryWidget } from './widget/element';

declare global {
  interface HTMLElementTagNameMap {
    'delivery-widget': DeliveryWidget;
  }
}

if (!customElements.get('delivery-widget')) customElements.define('delivery-widget', DeliveryWidget);
