/* html.c — a picture as a self-contained HTML page: the SVG inline, and a line that shows the cell under the
 * pointer (its tooltip; in a compact picture its row and column). */
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
    /* the pointer's cell: the nearest group carrying data-kind (its tooltip), else in a compact picture the row and
     * column under the pointer from its panel's geometry */
    buf_puts(o, "<script>\n"
                "var svg = document.querySelector('svg');\n"
                "svg.addEventListener('mousemove', function (e) {\n"
                "  var at = document.getElementById('at'), g = e.target.closest('g[data-kind]');\n"
                "  if (g) {\n"
                "    var p = g.closest('g.panel'), t = g.querySelector('title').textContent;\n"
                "    at.textContent = (p && p.dataset.label && t.indexOf('=') < 0 ? p.dataset.label + ', ' : '') + t;\n"
                "    return;\n"
                "  }\n"
                "  var r = svg.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;\n"
                "  svg.querySelectorAll('g.panel').forEach(function (p) {\n"
                "    var d = p.dataset, pitch = d.pitch.split(' ');\n"
                "    var c = Math.floor((x - d.x) / pitch[0]), w = Math.floor((y - d.y) / pitch[1]);\n"
                "    if (c >= 0 && w >= 0 && c < +d.cols && w < +d.rows)\n"
                "      at.textContent = (d.label ? d.label + ', ' : '') + 'row ' + w + ', column ' + c;\n"
                "  });\n"
                "});\n"
                "</script>\n</body>\n</html>\n");
}
