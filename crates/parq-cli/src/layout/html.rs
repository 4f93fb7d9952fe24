//! The picture of [`Layout`] as a standalone HTML page: the SVG of [`super::svg`] inline,
//! with a small script that shows each element's hover text (its SVG `<title>`) in a styled
//! box at once instead of the browser's delayed tooltip. No network fetches.

use super::{escape, Layout};

const STYLE: &str = "\
body{margin:0;padding:12px;background:#fff;color:#222;font-family:'DejaVu Sans',Verdana,Arial,sans-serif}\
svg{display:block;max-width:100%;height:auto}\
#tip{position:fixed;display:none;max-width:560px;padding:6px 9px;background:#fffef6;\
border:1px solid #999;border-radius:4px;box-shadow:0 2px 8px rgba(0,0,0,.25);\
font:12px/1.45 'DejaVu Sans Mono',monospace;white-space:pre-wrap;pointer-events:none;z-index:1}";

const SCRIPT: &str = "\
(function(){\
var tip=document.getElementById('tip');\
function text(el){\
for(;el&&el.nodeType===1&&el.tagName!=='svg';el=el.parentNode){\
if(el.dataset.tip)return el.dataset.tip;\
var t=el.querySelector(':scope>title');\
if(t){el.dataset.tip=t.textContent;t.remove();return el.dataset.tip;}\
}\
return null;}\
document.addEventListener('mousemove',function(e){\
var s=text(e.target);\
if(!s){tip.style.display='none';return;}\
tip.textContent=s;tip.style.display='block';\
var x=e.clientX+14,y=e.clientY+14;\
if(x+tip.offsetWidth>innerWidth-4)x=Math.max(4,e.clientX-tip.offsetWidth-14);\
if(y+tip.offsetHeight>innerHeight-4)y=Math.max(4,e.clientY-tip.offsetHeight-14);\
tip.style.left=x+'px';tip.style.top=y+'px';});\
})();";

/// The page around `svg` (the output of [`super::svg::render`] for `layout`).
pub fn page(layout: &Layout, svg: &str) -> String {
    let mut out = String::with_capacity(svg.len() + STYLE.len() + SCRIPT.len() + 512);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    escape(&layout.name, &mut out);
    out.push_str(" · parq layout</title>\n<style>");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n");
    out.push_str(svg);
    out.push_str("<div id=\"tip\"></div>\n<script>");
    out.push_str(SCRIPT);
    out.push_str("</script>\n</body>\n</html>\n");
    out
}
