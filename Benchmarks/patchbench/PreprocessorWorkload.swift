import Foundation
import PatchEngine
import BenchFixtures

/// A multi-megabyte patch script made of real JSPatch-style code (defineClass with properties,
/// ORIG and super calls, blocks, GCD helpers, UIKit-like call chains) plus the things the
/// preprocessor must not rewrite: `.name(` inside strings, template text, comments and regular
/// expressions, and `new a.B(...)`.
enum PreprocessorWorkload {
    /// One unit of the workload; `n` makes its class names unique.
    static func unit(_ n: Int) -> String {
        """
        // Patch \(n): fixes the cart screen. Calls like self.reload() in comments stay as they are.
        require('UIView, UILabel, UIColor, NSString, NSMutableArray, NSDictionary');
        defineClass('CartViewController\(n) : UIViewController <UITableViewDataSource, UITableViewDelegate>', ['items', 'totalLabel'], {
          viewDidLoad: function() {
            self.super().viewDidLoad();
            self.setItems(NSMutableArray.array());
            var label = UILabel.alloc().initWithFrame({x: 0, y: 0, width: 320, height: 44});
            label.setTextColor(UIColor.colorWithRed_green_blue_alpha(0.2, 0.4, 0.6, 1.0));
            label.setText("Total: (tap .refresh() to update)");
            self.view().addSubview(label);
            self.setTotalLabel(label);
          },
          tableView_numberOfRowsInSection: function(tableView, section) {
            return self.items().count();
          },
          tableView_cellForRowAtIndexPath: function(tableView, indexPath) {
            var cell = tableView.dequeueReusableCellWithIdentifier("cell\(n)");
            var item = self.items().objectAtIndex(indexPath.row());
            var title = `${item.name().toJS()} x ${item.count()} = ${item.price() * item.count()}`;
            cell.textLabel().setText(title.replace(/\\.(\\w+)\\(/g, ".$1 ("));
            return cell;
          },
          updateTotal: function() {
            /* Sum with a plain JS loop: arr.length and Math.round(x) are JS, rewriting them is harmless. */
            var total = 0, items = self.items();
            for (var i = 0; i < items.count(); i++) {
              total += items.objectAtIndex(i).price() * items.objectAtIndex(i).count();
            }
            var text = NSString.stringWithFormat("%@ %.2f", 'Total:', Math.round(total * 100) / 100);
            self.totalLabel().setText(text);
            return self.ORIGupdateTotal();
          },
          loadItems: function(completion) {
            var slf = __weak(self);
            var request = new NetworkRequest\(n).Builder('/cart/items?.page(1)');
            self.fetcher().fetchWithCompletion(block("void, id, NSError*", function(result, error) {
              if (error) { console.log('load failed: ' + error.localizedDescription().toJS()); return; }
              dispatch_async_main(function() {
                slf.items().addObjectsFromArray(result.objectForKey("items"));
                slf.updateTotal();
                if (completion) completion(slf.items().count());
              });
            }));
          },
        }, {
          sharedCart: function() {
            var cache = NSDictionary.dictionaryWithObject_forKey(self.alloc().init(), "cart\(n)");
            return cache.objectForKey("cart\(n)");
          },
        });

        """
    }

    /// Units repeated until the script reaches `megabytes` (10^6 bytes).
    static func script(megabytes: Double) -> String {
        let target = Int(megabytes * 1_000_000)
        var out = ""
        out.reserveCapacity(target + 4096)
        var n = 0
        while out.utf8.count < target {
            out += unit(n)
            n += 1
        }
        return out
    }

    /// Rewrites the preprocessor must make in `script(megabytes:)`'s output: the sum over its
    /// units, each preprocessed alone (checks the big run did real work, not a shortcut).
    static func expectedRewrites(in script: String) -> Int {
        var total = 0, n = 0, length = 0
        let size = script.utf8.count
        while length < size {
            let piece = unit(n)
            total += Preprocessor.rewrite(piece).rewriteCount
            length += piece.utf8.count
            n += 1
        }
        return total
    }
}

/// The floor of the preprocessor: what any one-pass rewriter must at least do with the same
/// buffer — read every byte, look at it, append it to an output buffer and make a String of it.
enum ByteScanCopy {
    static func run(_ source: String) -> String {
        var source = source
        return source.withUTF8 { bytes -> String in
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count + bytes.count / 8)
            var dots = 0
            for byte in bytes {
                if byte == UInt8(ascii: ".") { dots &+= 1 }
                output.append(byte)
            }
            pb_consume(Int64(dots))
            return String(decoding: output, as: UTF8.self)
        }
    }
}
