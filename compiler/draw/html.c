/* html.c — a picture as a self-contained HTML page: the SVG inline, and a line that shows the position and cell
 * under the pointer. */
#include "draw_impl.h"

void html_write(const Pic *pic, Buf *o)
{
    buf_puts(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    buf_xml(o, pic_str(pic, pic->title));
    buf_puts(o, "</title>\n<style>body{margin:0;background:#fff;font-family:'DejaVu Sans Mono',monospace}"
                "#at{position:fixed;bottom:0;left:0;right:0;background:#fffbe6;border-top:1px solid #ccc;padding:2px 12px;"
                "font-size:12px;min-height:16px}svg{display:block}</style>\n</head>\n<body>\n"
                "<div id=\"at\">point at a cell to read its position and cell</div>\n");
    svg_write(pic, false, o);
    /* the pointer's cell: the nearest group carrying data-pos, and its panel's label */
    buf_puts(o, "<script>\n"
                "document.querySelector('svg').addEventListener('mouseover', function (e) {\n"
                "  var g = e.target.closest('g[data-pos]');\n"
                "  if (!g) return;\n"
                "  var p = g.closest('g.panel'), t = g.querySelectorAll('text.c'), s = [];\n"
                "  for (var i = 0; i < t.length; i++) s.push(t[i].textContent);\n"
                "  document.getElementById('at').textContent = (p && p.dataset.label ? p.dataset.label + ', ' : '') +\n"
                "    'position ' + g.dataset.pos + ': ' + s.join(' vs ');\n"
                "});\n"
                "</script>\n</body>\n</html>\n");
}
